// Which per-thread maps live in task-local storage (compiler/lower/task_storage.hpp), what the
// generated C does with them, and the LRU hash fallback for kernels without it.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

const plan::Map* find_map(const plan::Plan& p, const std::string& purpose_part) {
  auto it = std::find_if(p.maps.begin(), p.maps.end(), [&](const plan::Map& m) {
    return m.purpose.find(purpose_part) != std::string::npos;
  });
  return it == p.maps.end() ? nullptr : &*it;
}

// A per-thread state kept by probes (python.gil_held is read from memory, in no such map).
constexpr const char* kHeadline =
    "use cuda, usdt\ncudaStreamSynchronize > 10ms while usdt.in_request -> alert\n";

TEST(CodegenTaskStorage, PerThreadSpanAndStateUseTaskStorageWithZeroEntries) {
  Compiled c = compile_text(kHeadline);
  ASSERT_EQ(c.diagnostics, "");
  const plan::Map* span = find_map(c.lowered.plan, "span cuda.stream_sync");
  const plan::Map* state = find_map(c.lowered.plan, "state usdt.in_request");
  ASSERT_NE(span, nullptr);
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(span->type, plan::MapType::TaskStorage);
  EXPECT_EQ(span->max_entries, 0u);
  EXPECT_EQ(state->type, plan::MapType::TaskStorage);
  const std::string& src = c.generated.c_source;
  EXPECT_NE(src.find("BPF_MAP_TYPE_TASK_STORAGE"), std::string::npos);
  EXPECT_EQ(src.find("BPF_MAP_TYPE_LRU_HASH"), std::string::npos) << src;
  // The entry reads the clock once the value exists (a thread's first call allocates it).
  EXPECT_NE(src.find("v->start_ns = bpf_ktime_get_ns();"), std::string::npos) << src;
  // The span ends by zeroing its start (no delete: the value stays with the thread).
  EXPECT_NE(src.find("if (sv && sv->start_ns && seam_ends(seam_acts, sv->gen))"), std::string::npos) << src;
  EXPECT_NE(src.find("sv->start_ns = 0;"), std::string::npos);
  EXPECT_EQ(src.find("bpf_map_delete_elem"), std::string::npos);
  // The layout the runtime loads with says the same.
  plan::Plan back = c.generated.layout.get<plan::Plan>();
  EXPECT_EQ(find_map(back, "span cuda.stream_sync")->type, plan::MapType::TaskStorage);
}

TEST(CodegenTaskStorage, WithoutItEveryPerThreadMapIsAnLruHash) {
  lower::Options no_task_storage;
  no_task_storage.task_storage = false;
  Compiled c = compile_text(kHeadline, {}, no_task_storage);
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_EQ(find_map(c.lowered.plan, "span cuda.stream_sync")->type, plan::MapType::LruHash);
  EXPECT_EQ(find_map(c.lowered.plan, "state usdt.in_request")->type, plan::MapType::LruHash);
  EXPECT_GT(find_map(c.lowered.plan, "span cuda.stream_sync")->max_entries, 0u);
  const std::string& src = c.generated.c_source;
  EXPECT_EQ(src.find("TASK_STORAGE"), std::string::npos);
  EXPECT_EQ(src.find("SEAM_TASK_"), std::string::npos) << src;
  EXPECT_NE(
      src.find("bpf_map_delete_elem(&" + find_map(c.lowered.plan, "span cuda.stream_sync")->name + ", &key)"),
      std::string::npos)
      << src;
  EXPECT_NE(src.find("seam_state_held(&" + find_map(c.lowered.plan, "state usdt.in_request")->name),
            std::string::npos);
}

TEST(CodegenTaskStorage, ASpanScannedForPendingKeepsItsHashMap) {
  // `pending` is found by iterating the in-flight map from user space; task storage cannot be.
  Compiled c =
      compile_text("use cuda\nrule hang on cuda.stream_sync where pending > 1s alert warning \"hang\"\n");
  ASSERT_EQ(c.diagnostics, "");
  const plan::Map* span = find_map(c.lowered.plan, "span cuda.stream_sync");
  ASSERT_NE(span, nullptr);
  EXPECT_EQ(span->type, plan::MapType::LruHash);
  EXPECT_EQ(c.lowered.plan.rules.at(0).pending_map, span->name);
}

TEST(CodegenTaskStorage, ASpanKeyedByAFieldKeepsItsHashMap) {
  // sched.offcpu begins at a switch away from prev_pid and ends at the switch back to it: the
  // key is another thread than the current one.
  Compiled c =
      compile_text("use sched\nrule off on sched.offcpu where duration > 1s alert info \"off {duration}\"\n");
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_EQ(c.lowered.spans.size(), 1u);
  EXPECT_FALSE(c.lowered.spans[0].task_local);
  EXPECT_EQ(find_map(c.lowered.plan, "span")->type, plan::MapType::LruHash);
}

TEST(CodegenTaskStorage, CorrelationIgnoresAThreadThatNeverSawTheEvent) {
  Compiled c = compile_text(
      "use cuda\n"
      "rule r on cuda.stream_sync where duration > 100ms after cuda.malloc within 50ms\n"
      "    alert warning \"stall after a malloc of {cuda.malloc.size}\"\n");
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_EQ(find_map(c.lowered.plan, "last cuda.malloc")->type, plan::MapType::TaskStorage);
  // A zeroed value (created by another use on this thread) has ts 0: not a recent malloc.
  EXPECT_NE(c.generated.c_source.find("c && c->ts && c->ts <= began"), std::string::npos)
      << c.generated.c_source;
}

}  // namespace
}  // namespace seam::test
