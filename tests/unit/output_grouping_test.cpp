// `group within D`: identical alerts (rule, pid, stack) in a window become one alert written at
// once plus a summary carrying the count, with a fake clock.
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/output/alert_grouper.hpp"
#include "runtime/output/alert_pipeline.hpp"
#include "runtime/output/json_sink.hpp"
#include "runtime/output/stdout_sink.hpp"
#include "runtime/output/webhook_format.hpp"

namespace seam::runtime {
namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kOffset = 1796022723'000'000'000;

struct MemorySink : Sink {
  std::vector<Alert> alerts;
  std::vector<Notice> notices;
  void write(const Alert& a) override { alerts.push_back(a); }
  void write_notice(const Notice& n) override { notices.push_back(n); }
  void flush() override {}
};

plan::Plan grouped_plan(int64_t group_ns, int64_t limit_count = 0, int64_t limit_per_ns = 0) {
  plan::Plan p;
  plan::Rule r;
  r.id = 0;
  r.name = "sync";
  r.file = "rules/g.seam";
  r.line = 2;
  r.message = {{false, "sync took ", {}}, {true, "duration", {}}};
  r.group_ns = group_ns;
  r.limit_count = limit_count;
  r.limit_per_ns = limit_per_ns;
  p.rules.push_back(r);
  plan::Record rec;
  rec.rule_id = 0;
  plan::Field d;
  d.name = "duration";
  d.unit = plan::FieldUnit::Ns;
  d.offset = 48;
  d.size = 8;
  plan::Field u;
  u.name = "ustack";
  u.type = plan::FieldType::UStack;
  u.offset = 56;
  u.size = 24;
  rec.fields = {d, u};
  rec.size = 80;
  p.records.push_back(rec);
  plan::resolve_values(p);
  return p;
}

std::vector<uint8_t> record(uint64_t time_ns, uint32_t pid, uint64_t top_frame) {
  std::vector<uint8_t> b(80, 0);
  auto put = [&](size_t at, auto v) { std::memcpy(b.data() + at, &v, sizeof v); };
  put(0, uint32_t{0});
  put(4, uint32_t{80});
  put(8, time_ns);
  put(16, pid);
  put(20, pid + 1);  // another thread of the same process: still the same identity
  std::memcpy(b.data() + 32, "python3", 7);
  put(48, uint64_t{20'000'000});
  put(56, uint64_t{2});
  put(64, top_frame);
  put(72, uint64_t{0x7f0002});
  return b;
}

struct Harness {
  plan::Plan plan;
  MemorySink* sink = nullptr;
  int64_t now = 0;
  std::unique_ptr<AlertPipeline> pipeline;
  explicit Harness(plan::Plan p) : plan(std::move(p)) {
    auto s = std::make_unique<MemorySink>();
    sink = s.get();
    std::vector<std::unique_ptr<Sink>> sinks;
    sinks.push_back(std::move(s));
    PipelineOptions o;
    o.clock = [this] { return now; };
    o.clock_offset_ns = kOffset;
    pipeline = std::make_unique<AlertPipeline>(plan, std::move(sinks), std::move(o));
  }
  void at(int64_t t, uint32_t pid, uint64_t top = 0x7f0001) {
    now = t;
    pipeline->on_record(record(static_cast<uint64_t>(t), pid, top));
  }
};

TEST(OutputGrouping, IdenticalAlertsInTheWindowBecomeOneWithACount) {
  Harness h(grouped_plan(10 * kSecond));
  for (int i = 0; i < 5; ++i) h.at(i * kSecond, 100);
  ASSERT_EQ(h.sink->alerts.size(), 1u);  // the first, at once
  EXPECT_EQ(h.sink->alerts[0].count, 1u);
  h.now = 9 * kSecond;
  h.pipeline->flush();
  EXPECT_EQ(h.sink->alerts.size(), 1u);  // the window is still open
  h.now = 10 * kSecond;
  h.pipeline->flush();
  ASSERT_EQ(h.sink->alerts.size(), 2u);
  const Alert& summary = h.sink->alerts[1];
  EXPECT_EQ(summary.count, 5u);
  EXPECT_EQ(summary.pid, 100u);
  EXPECT_EQ(summary.message, "sync took 20.0ms");
  EXPECT_EQ(summary.time_ns, kOffset + 4 * kSecond);  // the last repeat
  EXPECT_EQ(h.pipeline->stats(0).suppressed, 4u);
  EXPECT_EQ(h.pipeline->stats(0).written, 2u);
  h.now = 30 * kSecond;
  h.pipeline->flush();
  EXPECT_EQ(h.sink->alerts.size(), 2u);  // reported once
}

TEST(OutputGrouping, ProcessesAndStacksAreSeparateGroups) {
  Harness h(grouped_plan(10 * kSecond));
  h.at(0, 100);
  h.at(1, 200);
  h.at(2, 100, 0x7f0009);  // another stack
  h.at(3, 100);
  h.at(4, 200);
  h.at(5, 200);
  ASSERT_EQ(h.sink->alerts.size(), 3u);
  h.pipeline->finish();  // exit reports the open groups
  ASSERT_EQ(h.sink->alerts.size(), 5u);
  EXPECT_EQ(h.sink->alerts[3].pid, 100u);
  EXPECT_EQ(h.sink->alerts[3].count, 2u);
  EXPECT_EQ(h.sink->alerts[4].pid, 200u);
  EXPECT_EQ(h.sink->alerts[4].count, 3u);
  EXPECT_EQ(h.pipeline->stats(0).suppressed, 3u);
}

TEST(OutputGrouping, TheNextIdenticalAlertAfterTheWindowComesAfterTheSummary) {
  Harness h(grouped_plan(10 * kSecond));
  h.at(0, 100);
  h.at(kSecond, 100);
  h.at(12 * kSecond, 100);  // no flush in between: the summary is written first
  ASSERT_EQ(h.sink->alerts.size(), 3u);
  EXPECT_EQ(h.sink->alerts[1].count, 2u);
  EXPECT_EQ(h.sink->alerts[2].count, 1u);
  EXPECT_EQ(h.sink->alerts[2].time_ns, kOffset + 12 * kSecond);
}

TEST(OutputGrouping, AGroupWithoutRepeatsHasNoSummary) {
  Harness h(grouped_plan(kSecond));
  h.at(0, 100);
  h.at(0, 200);
  h.now = 5 * kSecond;
  h.pipeline->flush();
  h.pipeline->finish();
  EXPECT_EQ(h.sink->alerts.size(), 2u);
  EXPECT_EQ(h.pipeline->stats(0).suppressed, 0u);
}

TEST(OutputGrouping, ASummaryIsWrittenEvenWhenTheLimitHeldTheFirstBack) {
  Harness h(grouped_plan(10 * kSecond, 1, 60 * kSecond));
  h.at(0, 100);
  h.at(1, 200);  // first of its group, but over the limit
  h.at(2, 200);
  ASSERT_EQ(h.sink->alerts.size(), 1u);
  h.pipeline->finish();
  ASSERT_EQ(h.sink->alerts.size(), 2u);
  EXPECT_EQ(h.sink->alerts[1].pid, 200u);
  EXPECT_EQ(h.sink->alerts[1].count, 2u);
  ASSERT_EQ(h.sink->notices.size(), 1u);  // the limit's own count
  EXPECT_EQ(h.sink->notices[0].kind, "suppressed");
  EXPECT_EQ(h.sink->notices[0].count, 1u);
}

TEST(OutputGrouping, RulesWithoutGroupCarryNoCount) {
  Harness h(grouped_plan(0));
  h.at(0, 100);
  h.at(1, 100);
  ASSERT_EQ(h.sink->alerts.size(), 2u);
  EXPECT_EQ(h.sink->alerts[1].count, 0u);
}

TEST(OutputGrouping, UserSpaceAlertsGroupByPidAndStack) {
  Harness h(grouped_plan(10 * kSecond));
  Alert a;
  a.rule = "sync";
  a.pid = 7;
  a.stacks = {AlertStack{"ustack", false, {StackFrame{0x1, "", 0, ""}}}};
  for (int i = 0; i < 3; ++i) {
    Alert copy = a;
    h.pipeline->write_alert(0, copy);
  }
  ASSERT_EQ(h.sink->alerts.size(), 1u);
  h.pipeline->finish();
  ASSERT_EQ(h.sink->alerts.size(), 2u);
  EXPECT_EQ(h.sink->alerts[1].count, 3u);
}

TEST(OutputGrouping, NewIdentitiesBeyondTheCapAreWrittenUngrouped) {
  AlertGrouper g(kSecond, 2);
  std::vector<Alert> summaries;
  EXPECT_TRUE(g.admit(1, 0, 0, summaries).grouped);
  EXPECT_TRUE(g.admit(2, 0, 0, summaries).grouped);
  AlertGrouper::Admission third = g.admit(3, 0, 0, summaries);
  EXPECT_TRUE(third.write);
  EXPECT_FALSE(third.grouped);
  EXPECT_FALSE(g.admit(1, 1, 0, summaries).write);
  EXPECT_EQ(g.open_groups(), 2u);
}

TEST(OutputGrouping, JsonAndTextCarryTheCount) {
  Alert a;
  a.time_ns = kOffset;
  a.rule = "sync";
  a.message = "m";
  a.count = 4;
  std::string json;
  append_alert_json(json, a);
  EXPECT_NE(json.find(",\"count\":4}"), std::string::npos) << json;
  a.count = 0;
  json.clear();
  append_alert_json(json, a);
  EXPECT_EQ(json.find("\"count\""), std::string::npos) << json;
  a.count = 4;
  std::string text;
  append_alert_text(text, a);
  EXPECT_NE(text.find(" (4 identical alerts in the group, 3 suppressed)\n"), std::string::npos) << text;
  std::string am = alertmanager_body(std::span<const Alert>(&a, 1), AlertmanagerContext{});
  EXPECT_NE(am.find("\"count\":\"4\""), std::string::npos) << am;
  EXPECT_NE(am.find("(4 identical alerts in the group, 3 suppressed)"), std::string::npos) << am;
  EXPECT_NE(webhook_json_body(std::span<const Alert>(&a, 1)).find("\"count\":4}"), std::string::npos);
}

}  // namespace
}  // namespace seam::runtime
