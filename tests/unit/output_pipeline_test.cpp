// The whole output path from record bytes: decode → limit → symbolize → sinks, with stats.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <time.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "runtime/output/alert_pipeline.hpp"
#include "runtime/output/json_sink.hpp"

namespace seam::runtime {
namespace {

using plan::FieldType;
using plan::FieldUnit;

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kOffset = 1796022723'000'000'000;  // monotonic 0 is 2026-11-30T07:12:03Z

// Keeps what it is given, in memory.
struct MemorySink : Sink {
  std::vector<Alert> alerts;
  std::vector<Notice> notices;
  int flushes = 0;
  void write(const Alert& a) override { alerts.push_back(a); }
  void write_notice(const Notice& n) override { notices.push_back(n); }
  void flush() override { ++flushes; }
};

plan::Plan sync_plan(int64_t limit_count = 0, int64_t limit_per_ns = 0) {
  plan::Plan p;
  plan::Rule r;
  r.id = 0;
  r.name = "sync_under_gil";
  r.file = "rules/gil.seam";
  r.line = 3;
  r.message = {
      {false, "stream sync blocked ", {}}, {true, "duration", {}}, {false, " with the GIL held", {}}};
  r.with = {{"stream", {}}};
  r.limit_count = limit_count;
  r.limit_per_ns = limit_per_ns;
  p.rules.push_back(r);
  plan::Record rec;
  rec.rule_id = 0;
  plan::Field d;
  d.name = "duration";
  d.unit = FieldUnit::Ns;
  d.offset = 48;
  d.size = 8;
  plan::Field s;
  s.name = "stream";
  s.type = FieldType::Ptr;
  s.offset = 56;
  s.size = 8;
  plan::Field u;
  u.name = "ustack";
  u.type = FieldType::UStack;
  u.offset = 64;
  u.size = 24;
  rec.fields = {d, s, u};
  rec.size = 88;
  p.records.push_back(rec);
  plan::resolve_values(p);
  return p;
}

std::vector<uint8_t> sync_record(uint64_t time_ns, uint64_t duration_ns, uint32_t rule_id = 0,
                                 uint32_t pid = 1234) {
  std::vector<uint8_t> b(88, 0);
  auto put = [&](size_t at, auto v) { std::memcpy(b.data() + at, &v, sizeof v); };
  put(0, rule_id);
  put(4, uint32_t{88});
  put(8, time_ns);
  put(16, pid);
  put(20, uint32_t{1235});
  put(24, uint64_t{99});
  std::memcpy(b.data() + 32, "python3", 7);
  put(48, duration_ns);
  put(56, uint64_t{0x10});
  put(64, uint64_t{2});
  put(72, uint64_t{0x7f0001});
  put(80, uint64_t{0x7f0002});
  return b;
}

struct Harness {
  plan::Plan plan;
  MemorySink* sink = nullptr;
  int64_t now = 0;
  int symbolize_calls = 0;
  std::unique_ptr<AlertPipeline> pipeline;

  explicit Harness(plan::Plan p) : plan(std::move(p)) {
    auto s = std::make_unique<MemorySink>();
    sink = s.get();
    std::vector<std::unique_ptr<Sink>> sinks;
    sinks.push_back(std::move(s));
    PipelineOptions o;
    o.clock = [this] { return now; };
    o.clock_offset_ns = kOffset;
    o.symbolizer = [this](uint32_t, std::span<const uint64_t> addrs, bool) {
      ++symbolize_calls;
      std::vector<StackFrame> frames;
      for (uint64_t a : addrs) frames.push_back({a, "cudaStreamSynchronize", a & 0xf, "libcudart.so.12"});
      return frames;
    };
    pipeline = std::make_unique<AlertPipeline>(plan, std::move(sinks), std::move(o));
  }
};

TEST(OutputPipeline, RecordBecomesAnAlertInEverySink) {
  Harness h(sync_plan());
  h.pipeline->on_record(sync_record(123'000'000, 20'100'000));
  ASSERT_EQ(h.sink->alerts.size(), 1u);
  const Alert& a = h.sink->alerts[0];
  EXPECT_EQ(a.time_ns, kOffset + 123'000'000);
  EXPECT_EQ(a.message, "stream sync blocked 20.1ms with the GIL held");
  EXPECT_EQ(a.rule, "sync_under_gil");
  EXPECT_EQ(a.comm, "python3");
  ASSERT_EQ(a.fields.size(), 2u);  // `with stream`, then the record's duration
  EXPECT_EQ(a.fields[0].name, "stream");
  EXPECT_EQ(a.fields[1].name, "duration");
  ASSERT_EQ(a.stacks.size(), 1u);
  EXPECT_EQ(a.stacks[0].frames[1].symbol, "cudaStreamSynchronize");
  EXPECT_EQ(a.stacks[0].frames[1].offset, 2u);
  RuleStats s = h.pipeline->stats(0);
  EXPECT_EQ(s.decoded, 1u);
  EXPECT_EQ(s.written, 1u);
  EXPECT_EQ(s.suppressed, 0u);
}

TEST(OutputPipeline, LimitedAlertsAreCountedNotSymbolizedAndReported) {
  Harness h(sync_plan(2, kSecond));
  for (int i = 0; i < 10; ++i) h.pipeline->on_record(sync_record(i, 1000));
  EXPECT_EQ(h.sink->alerts.size(), 2u);
  EXPECT_EQ(h.symbolize_calls, 2);  // only written alerts are symbolized
  RuleStats s = h.pipeline->stats(0);
  EXPECT_EQ(s.decoded, 10u);
  EXPECT_EQ(s.written, 2u);
  EXPECT_EQ(s.suppressed, 8u);

  h.pipeline->flush();  // window still open: nothing to report yet
  EXPECT_TRUE(h.sink->notices.empty());
  EXPECT_EQ(h.sink->flushes, 1);

  h.now = kSecond;  // the window has ended and no alert came to carry the count
  h.pipeline->flush();
  ASSERT_EQ(h.sink->notices.size(), 1u);
  EXPECT_EQ(h.sink->notices[0].kind, "suppressed");
  EXPECT_EQ(h.sink->notices[0].count, 8u);
  EXPECT_EQ(h.sink->notices[0].rule, "sync_under_gil");
  EXPECT_EQ(h.sink->notices[0].message, "rule sync_under_gil: 8 similar alerts suppressed by its limit");

  h.now = 2 * kSecond;
  for (int i = 0; i < 4; ++i) h.pipeline->on_record(sync_record(i, 1000));
  ASSERT_EQ(h.sink->alerts.size(), 4u);
  EXPECT_EQ(h.sink->alerts[2].suppressed, 0u);  // the 8 were reported by the notice already
  h.now = 3 * kSecond;
  h.pipeline->on_record(sync_record(0, 1000));
  ASSERT_EQ(h.sink->alerts.size(), 5u);
  EXPECT_EQ(h.sink->alerts[4].suppressed, 2u);  // carried on the next alert written
  h.pipeline->on_record(sync_record(0, 1000));
  h.pipeline->on_record(sync_record(0, 1000));  // held back: 1 pending at exit
  h.pipeline->finish();
  ASSERT_EQ(h.sink->notices.size(), 2u);
  EXPECT_EQ(h.sink->notices[1].count, 1u);
  EXPECT_EQ(h.pipeline->stats(0).suppressed, 8u + 2u + 1u);
  h.pipeline->finish();  // idempotent
  EXPECT_EQ(h.sink->notices.size(), 2u);
}

TEST(OutputPipeline, DecodeErrorsAreCountedAndReportedOncePerRule) {
  Harness h(sync_plan());
  auto short_record = sync_record(0, 1);
  short_record.resize(60);
  std::memcpy(short_record.data() + 4, "\x3c\0\0\0", 4);  // size field says 60
  h.pipeline->on_record(short_record);
  h.pipeline->on_record(short_record);
  h.pipeline->on_record(sync_record(0, 1, 42));  // unknown rule
  h.pipeline->on_record(std::vector<uint8_t>(3, 0));
  EXPECT_EQ(h.pipeline->stats(0).decode_errors, 2u);
  EXPECT_EQ(h.pipeline->unattributed_decode_errors(), 2u);
  ASSERT_EQ(h.sink->notices.size(), 2u);
  EXPECT_EQ(h.sink->notices[0].kind, "decode-error");
  EXPECT_EQ(h.sink->notices[0].rule, "sync_under_gil");
  EXPECT_NE(h.sink->notices[1].message.find("unknown rule id 42"), std::string::npos);
  EXPECT_EQ(h.sink->notices[1].rule, std::nullopt);
  EXPECT_TRUE(h.sink->alerts.empty());
  EXPECT_EQ(h.pipeline->stats(7).decoded, 0u);  // unknown id: zeros
}

TEST(OutputPipeline, AlertsBuiltElsewhereAreLimitedToo) {
  Harness h(sync_plan(1, kSecond));
  Alert a;
  a.rule = "sync_under_gil";
  h.pipeline->write_alert(0, a);
  h.pipeline->write_alert(0, a);
  EXPECT_EQ(h.sink->alerts.size(), 1u);
  EXPECT_EQ(h.pipeline->stats(0).suppressed, 1u);
}

TEST(OutputPipeline, PerProcessLimitsGiveEachProcessItsOwnAlertsAndCounts) {
  plan::Plan p = sync_plan(2, kSecond);
  p.rules[0].limit_per_process = true;
  Harness h(std::move(p));
  for (int i = 0; i < 5; ++i) h.pipeline->on_record(sync_record(i, 1000, 0, 100));  // noisy first
  for (int i = 0; i < 3; ++i) h.pipeline->on_record(sync_record(i, 1000, 0, 200));
  ASSERT_EQ(h.sink->alerts.size(), 4u);
  EXPECT_EQ(h.sink->alerts[2].pid, 200u);  // 100's noise did not hide 200's first alert
  EXPECT_EQ(h.pipeline->stats(0).suppressed, 3u + 1u);
  h.now = kSecond;
  h.pipeline->on_record(sync_record(0, 1000, 0, 100));  // carries only 100's own count
  ASSERT_EQ(h.sink->alerts.size(), 5u);
  EXPECT_EQ(h.sink->alerts[4].suppressed, 3u);
  h.pipeline->flush();  // 200's window has ended with no alert to carry its count
  ASSERT_EQ(h.sink->notices.size(), 1u);
  EXPECT_EQ(h.sink->notices[0].count, 1u);
  EXPECT_EQ(h.sink->notices[0].message,
            "rule sync_under_gil: 1 similar alert from pid 200 suppressed by its limit");
}

TEST(OutputPipeline, WindowedAlertsAreLimitedPerProcessByTheirPidLabel) {
  plan::Plan p = sync_plan(1, kSecond);
  p.rules[0].limit_per_process = true;
  Harness h(std::move(p));
  auto series = [](const char* pid) {
    Alert a;
    a.rule = "sync_under_gil";
    a.fields.push_back({"pid", Value{std::string(pid), FieldUnit::None, FieldType::Str}, "", pid});
    return a;
  };
  for (const char* pid : {"11", "22", "11", "22", "33"}) {
    Alert a = series(pid);
    h.pipeline->write_alert(0, a);
  }
  EXPECT_EQ(h.sink->alerts.size(), 3u);  // 11, 22, 33 once each
  h.pipeline->finish();
  std::set<std::string> messages;
  for (const Notice& n : h.sink->notices) messages.insert(n.message);
  EXPECT_EQ(messages, (std::set<std::string>{
                          "rule sync_under_gil: 1 similar alert from pid 11 suppressed by its limit",
                          "rule sync_under_gil: 1 similar alert from pid 22 suppressed by its limit"}));
}

// Not a pass/fail benchmark (the machine is shared): prints the rate through the JSON sink so
// a regression is visible in the test log. Built in Release it should exceed 1M records/s.
TEST(OutputPipeline, JsonThroughputIsPrinted) {
  plan::Plan p = sync_plan();
  std::vector<std::unique_ptr<Sink>> sinks;
  int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(null_fd, 0);
  sinks.push_back(std::make_unique<JsonSink>(null_fd, true));
  PipelineOptions o;
  o.clock_offset_ns = kOffset;
  AlertPipeline pipeline(p, std::move(sinks), std::move(o));
  auto record = sync_record(5, 20'100'000);
  constexpr int kRecords = 200'000;
  // Thread CPU time, not wall time: the build machines are shared and often overloaded.
  auto cpu_seconds = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
  };
  const double start = cpu_seconds();
  for (int i = 0; i < kRecords; ++i) {
    pipeline.on_record(record);
    if (i % 256 == 255) pipeline.flush();
  }
  pipeline.finish();
  const double secs = cpu_seconds() - start;
  EXPECT_EQ(pipeline.stats(0).written, static_cast<uint64_t>(kRecords));
  std::printf("JSON pipeline: %.0f records per CPU-second\n", kRecords / secs);
}

}  // namespace
}  // namespace seam::runtime
