// MetricsEngine over maps made by hand: per-CPU values summed into labelled series, the overflow
// series, read errors, and windowed rules evaluated against the right old snapshot.
#include <gtest/gtest.h>

#include "metrics_fake_reader.hpp"
#include "runtime/metrics/metrics_engine.hpp"

namespace seam::runtime::metrics {
namespace {

using test::CpuValue;
using test::FakeMaps;
using test::make_entry;
using test::make_key;
using test::make_metric;

constexpr int64_t kSecond = 1'000'000'000;

struct Fixture {
  plan::Plan plan;
  std::shared_ptr<FakeMaps> maps = std::make_shared<FakeMaps>();
  std::unique_ptr<MetricsEngine> engine;
  void start() { engine = std::make_unique<MetricsEngine>(plan, std::make_unique<test::FakeReader>(maps)); }
  MapContents& map(size_t metric) { return maps->maps[plan.metrics[metric].map]; }
};

TEST(MetricsEngine, SumsPerCpuValuesIntoLabelledSeries) {
  Fixture f;
  f.plan.metrics.push_back(
      make_metric("sync_latency", plan::MetricKind::Hist, plan::FieldUnit::Ns, {"comm", "pid"}));
  f.start();
  const plan::Metric& m = f.plan.metrics[0];
  MapContents& map = f.map(0);
  map.cpus = 3;
  map.entries.push_back(make_entry(m, make_key(m, {{"trainer"}, {"", 42}}),
                                   {{2, 300, {{7, 2}}}, {0, 0, {}}, {1, 100, {{7, 1}}}}));
  map.entries.push_back(
      make_entry(m, make_key(m, {}, /*other=*/true), {{5, 50, {{3, 5}}}, {1, 2, {{1, 1}}}, {}}));
  map.entries.push_back(
      make_entry(m, make_key(m, {{"a-very-long-comm-name"}, {"", 7}}), {{1, 9, {{4, 1}}}, {}, {}}));
  f.engine->sample(1 * kSecond);

  const auto& series = f.engine->series("sync_latency");
  ASSERT_EQ(series.size(), 3u);
  // Sorted by labels, the overflow series last; comm is cut at its 16 bytes.
  EXPECT_EQ(series[0].labels, (Labels{{"comm", "a-very-long-comm"}, {"pid", "7"}}));
  EXPECT_EQ(series[1].labels, (Labels{{"comm", "trainer"}, {"pid", "42"}}));
  EXPECT_EQ(series[1].count, 3u);
  EXPECT_EQ(series[1].sum, 400u);
  ASSERT_EQ(series[1].buckets.size(), plan::kHistBuckets);
  EXPECT_EQ(series[1].buckets[7], 3u);
  EXPECT_TRUE(series[2].other);
  EXPECT_EQ(series[2].labels, (Labels{{"comm", "other"}, {"pid", "other"}}));
  EXPECT_EQ(series[2].count, 6u);
  EXPECT_EQ(series[2].buckets[3], 5u);
  EXPECT_EQ(series[2].buckets[1], 1u);
  EXPECT_TRUE(f.engine->series("no_such_metric").empty());
}

TEST(MetricsEngine, AReadErrorKeepsThePreviousSeriesAndIsCounted) {
  Fixture f;
  f.plan.metrics.push_back(make_metric("calls", plan::MetricKind::Count, plan::FieldUnit::None, {"pid"}));
  f.start();
  const plan::Metric& m = f.plan.metrics[0];
  f.map(0).entries.push_back(make_entry(m, make_key(m, {{"", 1}}), {{4, 0, {}}}));
  f.engine->sample(kSecond);
  f.maps->failing[m.map] = "map gone";
  f.engine->sample(2 * kSecond);
  ASSERT_EQ(f.engine->series("calls").size(), 1u);
  EXPECT_EQ(f.engine->series("calls")[0].count, 4u);
  EXPECT_EQ(f.engine->read_errors(), 1u);
  EXPECT_EQ(f.engine->last_error(), "map gone");
  EXPECT_NE(f.engine->prometheus_text({}).find("seam_metric_read_errors_total 1\n"), std::string::npos);
}

// Samples every 10 s; the count at t is (t/10)^2 so that each baseline gives a different rate.
TEST(MetricsEngine, RateUsesTheNewestSnapshotAtLeastTheWindowOld) {
  Fixture f;
  f.plan.metrics.push_back(make_metric("calls", plan::MetricKind::Count, plan::FieldUnit::None, {"pid"}));
  f.plan.windows.push_back(
      plan::Window{7, plan::WindowFunction::Rate, 0, "calls", 30 * kSecond, plan::Compare::Gt, 0.5});
  f.start();
  const plan::Metric& m = f.plan.metrics[0];
  for (uint64_t step = 0; step <= 6; ++step) {
    f.map(0).entries = {make_entry(m, make_key(m, {{"", 99}}), {{step * step, 0, {}}})};
    f.engine->sample(static_cast<int64_t>(step) * 10 * kSecond);
  }
  auto results = f.engine->evaluate(60 * kSecond);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].rule_id, 7u);
  EXPECT_DOUBLE_EQ(results[0].value, (36.0 - 9.0) / 30.0);  // baseline t=30 (t=20: 0.8, t=40: 1.0)
  EXPECT_EQ(results[0].unit, plan::FieldUnit::None);
  EXPECT_EQ(results[0].labels, (Labels{{"pid", "99"}}));
  // 35 s later than the last sample the data is stale: nothing is evaluated.
  EXPECT_TRUE(f.engine->evaluate(95 * kSecond).empty());
}

TEST(MetricsEngine, QuantileOverTheWindowIgnoresOlderObservations) {
  Fixture f;
  f.plan.metrics.push_back(make_metric("sync_latency", plan::MetricKind::Hist, plan::FieldUnit::Ns, {}));
  f.plan.windows.push_back(plan::Window{3, plan::WindowFunction::Quantile, 0.99, "sync_latency", 30 * kSecond,
                                        plan::Compare::Gt, 50'000});
  f.start();
  const plan::Metric& m = f.plan.metrics[0];
  // Until t=30: fast calls only (1 µs); then 5 slow ones (2^20 ns) every 10 s.
  const size_t fast_bucket = plan::hist_bucket_of(1000), slow_bucket = plan::hist_bucket_of(1 << 20);
  for (uint64_t step = 0; step <= 6; ++step) {
    uint64_t fast = 10 * std::min<uint64_t>(step, 3), slow = step > 3 ? 5 * (step - 3) : 0;
    f.map(0).entries = {
        make_entry(m, make_key(m, {}), {{fast + slow, 0, {{fast_bucket, fast}, {slow_bucket, slow}}}})};
    f.engine->sample(static_cast<int64_t>(step) * 10 * kSecond);
    auto results = f.engine->evaluate(static_cast<int64_t>(step) * 10 * kSecond);
    if (step < 4) {
      EXPECT_TRUE(results.empty()) << "step " << step;
    } else {
      ASSERT_EQ(results.size(), 1u) << "step " << step;
    }
  }
  auto results = f.engine->evaluate(60 * kSecond);
  ASSERT_EQ(results.size(), 1u);
  // Window (30 s, 60 s]: 15 slow values only, so p99 lies 99% through their bucket, whose upper
  // bound is 2^20.
  double lower = static_cast<double>(plan::hist_bucket_lower(static_cast<uint32_t>(slow_bucket)));
  EXPECT_DOUBLE_EQ(results[0].value, lower + (1048576.0 - lower) * 0.99);
  EXPECT_EQ(results[0].unit, plan::FieldUnit::Ns);
}

TEST(MetricsEngine, AvgPerSeriesAndOnlyThoseThatHold) {
  Fixture f;
  f.plan.metrics.push_back(make_metric("bytes", plan::MetricKind::Sum, plan::FieldUnit::Bytes, {"pid"}));
  f.plan.windows.push_back(
      plan::Window{1, plan::WindowFunction::Avg, 0, "bytes", 10 * kSecond, plan::Compare::Ge, 1024});
  f.start();
  const plan::Metric& m = f.plan.metrics[0];
  f.map(0).entries = {make_entry(m, make_key(m, {{"", 1}}), {{1, 100, {}}}),
                      make_entry(m, make_key(m, {{"", 2}}), {{1, 100, {}}})};
  f.engine->sample(0);
  EXPECT_TRUE(f.engine->evaluate(0).empty());  // one snapshot: no change to measure yet
  f.map(0).entries = {make_entry(m, make_key(m, {{"", 1}}), {{3, 4196, {}}}),   // 2 more, avg 2048
                      make_entry(m, make_key(m, {{"", 2}}), {{5, 500, {}}}),    // 4 more, avg 100
                      make_entry(m, make_key(m, {{"", 3}}), {{2, 2048, {}}})};  // new: avg 1024
  f.engine->sample(10 * kSecond);
  auto results = f.engine->evaluate(10 * kSecond);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].labels, (Labels{{"pid", "1"}}));
  EXPECT_DOUBLE_EQ(results[0].value, 2048);
  EXPECT_EQ(results[0].unit, plan::FieldUnit::Bytes);
  EXPECT_EQ(results[1].labels, (Labels{{"pid", "3"}}));
  EXPECT_DOUBLE_EQ(results[1].value, 1024);
}

TEST(MetricsEngine, ACountThatWentDownWasResetAndCountsWhole) {
  Fixture f;
  f.plan.metrics.push_back(make_metric("calls", plan::MetricKind::Count, plan::FieldUnit::None, {}));
  f.plan.windows.push_back(
      plan::Window{1, plan::WindowFunction::Count, 0, "calls", 10 * kSecond, plan::Compare::Gt, 0});
  f.start();
  const plan::Metric& m = f.plan.metrics[0];
  f.map(0).entries = {make_entry(m, make_key(m, {}), {{100, 0, {}}})};
  f.engine->sample(0);
  f.map(0).entries = {make_entry(m, make_key(m, {}), {{4, 0, {}}})};
  f.engine->sample(10 * kSecond);
  auto results = f.engine->evaluate(10 * kSecond);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_DOUBLE_EQ(results[0].value, 4);
}

// A start: calls made between the attach and the first sample are in the window (the first
// sample is not its baseline when the maps were created empty).
TEST(MetricsEngine, AfterAStartAWindowCountsWhatCameBeforeTheFirstSample) {
  for (bool from_empty : {false, true}) {
    Fixture f;
    f.plan.metrics.push_back(make_metric("calls", plan::MetricKind::Count, plan::FieldUnit::None, {}));
    f.plan.windows.push_back(
        plan::Window{1, plan::WindowFunction::Count, 0, "calls", 60 * kSecond, plan::Compare::Gt, 0});
    f.start();
    if (from_empty) f.engine->count_from_empty_maps(0);
    const plan::Metric& m = f.plan.metrics[0];
    f.map(0).entries = {make_entry(m, make_key(m, {}), {{3, 0, {}}})};  // 3 calls before the first sample
    f.engine->sample(1 * kSecond);
    f.map(0).entries = {make_entry(m, make_key(m, {}), {{10, 0, {}}})};
    f.engine->sample(2 * kSecond);
    auto results = f.engine->evaluate(2 * kSecond);
    ASSERT_EQ(results.size(), 1u) << from_empty;
    // A reload's engine (not told its maps were empty) counts from its first sample.
    EXPECT_DOUBLE_EQ(results[0].value, from_empty ? 10 : 7);
  }
}

}  // namespace
}  // namespace seam::runtime::metrics

namespace seam::runtime::metrics {
namespace {

TEST(BpfMapReader, AMapThatIsNotLoadedIsAnErrorNamingIt) {
  plan::Metric m = test::make_metric("calls", plan::MetricKind::Count, plan::FieldUnit::None, {});
  auto reader = bpf_map_reader([](const std::string&) { return -1; });
  Result<MapContents> read = reader->read(m);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error(), "metric calls (map seam_metric_calls): the map is not loaded");
  EXPECT_EQ(read.code(), ErrorCode::NotFound);
}

}  // namespace
}  // namespace seam::runtime::metrics
