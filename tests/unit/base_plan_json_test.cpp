// The plan travels as JSON in a bundle (compiler/bundle/): every field written must come back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compiler/plan/plan.hpp"

namespace seam::plan {
namespace {

// A plan with a value other than the default in every field the runtime reads.
Plan every_field_set() {
  Plan p;
  p.libraries.push_back({"cudart", "cuda", {{true, "libcudart.so*"}}, "/opt/lib/libcudart.so.12"});
  Attachment a;
  a.program = "on_sync";
  a.kind = AttachKind::Uretprobe;
  a.feature = Feature::Usdt;
  a.library = 0;
  a.symbols = {"cudaStreamSynchronize", "cudaStreamSynchronize_v2"};
  a.offset = 16;
  a.category = "sched";
  a.name = "sched_switch";
  a.perf_type = 1, a.perf_config = 2, a.perf_period = 3, a.perf_frequency = 4;
  a.fallback = "on_sync_tp";
  a.is_fallback = true;
  a.rules = {3, 4};
  a.origin = "rules/gil.seam:7";
  p.attachments.push_back(a);
  p.maps.push_back(
      {"span0", MapType::TaskStorage, 8, 24, 0, "span stream_sync in flight", "span stream_sync, key tid"});
  Rule r;
  r.id = 3;
  r.name = "sync_while_gil";
  r.file = "rules/gil.seam";
  r.line = 7;
  r.severity = Severity::Critical;
  r.event = "cuda.stream_sync";
  r.message = {{false, "blocked ", {}}, {true, "duration", {3, plan::HeaderValue::None}}};
  r.with = {{"ustack", {}}, {"pid", {-1, plan::HeaderValue::Pid}}};
  r.limit_count = 5;
  r.limit_per_ns = 60'000'000'000;
  r.limit_per_process = true;
  r.group_ns = 10'000'000'000;
  r.windowed = true;
  r.pending_ns = 1'000'000;
  r.pending_map = "span0";
  p.rules.push_back(r);
  p.records.push_back({3, 72, {{"duration", FieldType::I32, FieldUnit::Ns, 48, 8, "cudaError"}}});
  Metric m;
  m.name = "sync_latency";
  m.map = "metric0";
  m.kind = MetricKind::Hist;
  m.unit = FieldUnit::Bytes;
  m.labels = {{"comm", FieldType::Str, 8, 16, ""}, {"kind", FieldType::U32, 24, 4, "cudaError"}};
  m.key_size = 24;
  m.value_size = 528;
  m.per_cpu = false;
  m.max_series = 77;
  m.help = "sync latency";
  m.origin = "rules/sync.seam:3";
  p.metrics.push_back(m);
  p.windows.push_back({3, WindowFunction::Rate, 0.5, "sync_latency", 60'000'000'000, Compare::Le, 12.5});
  p.ringbuf_map = "events";
  p.drops_map = "drops";
  p.ringbuf_bytes = 1u << 16;
  p.scopes = {{ScopeKind::Cgroup, "/serving", "rules/sync.seam:2"}};
  p.workload_libraries = {"libcudart.so*"};
  p.memory_readers.push_back({"cpython_gil", "python.gil_held", "py_procs0", 0, "stdlib/python.seam:19"});
  p.enums["cudaError"] = {{0, "cudaSuccess"}, {2, "cudaErrorMemoryAllocation"}};
  return p;
}

TEST(PlanJson, RoundTripKeepsEveryField) {
  Plan before = every_field_set();
  nlohmann::json j = before;
  Plan after = nlohmann::json::parse(j.dump()).get<Plan>();
  EXPECT_EQ(nlohmann::json(after), j);
  // And field by field, so that a field the JSON drops is caught even if both sides drop it.
  ASSERT_EQ(after.attachments.size(), 1u);
  const Attachment& a = after.attachments[0];
  EXPECT_EQ(a.kind, AttachKind::Uretprobe);
  EXPECT_EQ(a.feature, Feature::Usdt);
  EXPECT_EQ(a.symbols, before.attachments[0].symbols);
  EXPECT_EQ(a.offset, 16u);
  EXPECT_EQ(a.perf_frequency, 4u);
  EXPECT_EQ(a.fallback, "on_sync_tp");
  EXPECT_TRUE(a.is_fallback);
  EXPECT_EQ(a.rules, (std::vector<uint32_t>{3, 4}));
  ASSERT_EQ(after.libraries.size(), 1u);
  EXPECT_TRUE(after.libraries[0].patterns.at(0).executable);
  EXPECT_EQ(after.libraries[0].path, "/opt/lib/libcudart.so.12");
  EXPECT_EQ(after.maps.at(0).type, MapType::TaskStorage);
  EXPECT_EQ(after.maps.at(0).contents, "span stream_sync, key tid");  // a reload compares it
  const Rule& r = after.rules.at(0);
  EXPECT_EQ(r.severity, Severity::Critical);
  EXPECT_TRUE(r.message.at(1).is_field);
  EXPECT_EQ(r.message.at(1).ref.field, 3);
  EXPECT_EQ(r.with.at(1).name, "pid");
  EXPECT_EQ(r.with.at(1).ref.header, plan::HeaderValue::Pid);
  EXPECT_EQ(r.limit_per_ns, 60'000'000'000);
  EXPECT_TRUE(r.limit_per_process);
  EXPECT_EQ(r.group_ns, 10'000'000'000);
  EXPECT_TRUE(r.windowed);
  EXPECT_EQ(r.pending_map, "span0");
  const Field& f = after.records.at(0).fields.at(0);
  EXPECT_EQ(f.type, FieldType::I32);
  EXPECT_EQ(f.unit, FieldUnit::Ns);
  EXPECT_EQ(f.offset, 48u);
  EXPECT_EQ(f.enum_name, "cudaError");
  const Metric& m = after.metrics.at(0);
  EXPECT_EQ(m.kind, MetricKind::Hist);
  EXPECT_EQ(m.labels.at(0).type, FieldType::Str);
  EXPECT_EQ(m.max_series, 77u);
  EXPECT_FALSE(m.per_cpu);
  EXPECT_EQ(m.labels.at(1).enum_name, "cudaError");
  ASSERT_EQ(after.scopes.size(), 1u);
  EXPECT_EQ(after.scopes[0].kind, ScopeKind::Cgroup);
  EXPECT_EQ(after.scopes[0].argument, "/serving");
  EXPECT_EQ(after.scopes[0].origin, "rules/sync.seam:2");
  EXPECT_EQ(after.workload_libraries, before.workload_libraries);
  ASSERT_EQ(after.memory_readers.size(), 1u);
  EXPECT_EQ(after.memory_readers[0].map, "py_procs0");
  EXPECT_EQ(after.memory_readers[0].library, 0);
  const Window& w = after.windows.at(0);
  EXPECT_EQ(w.function, WindowFunction::Rate);
  EXPECT_EQ(w.compare, Compare::Le);
  EXPECT_DOUBLE_EQ(w.threshold, 12.5);
  EXPECT_EQ(after.ringbuf_bytes, 1u << 16);
  EXPECT_EQ(after.drops_map, "drops");
  EXPECT_EQ(after.enums.at("cudaError").at(2), "cudaErrorMemoryAllocation");
}

TEST(PlanJson, MissingRequiredKeyIsAnError) {
  nlohmann::json j = every_field_set();
  j.erase("attachments");
  EXPECT_THROW(j.get<Plan>(), nlohmann::json::exception);
}

}  // namespace
}  // namespace seam::plan
