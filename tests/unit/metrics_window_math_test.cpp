// Window functions over histogram buckets (quantiles: metrics_histogram_test.cpp), avg, rate,
// comparisons.
#include <gtest/gtest.h>

#include "compiler/plan/hist_layout.hpp"
#include "runtime/metrics/snapshot_history.hpp"
#include "runtime/metrics/window_math.hpp"

namespace seam::runtime::metrics {
namespace {

std::vector<uint64_t> buckets(std::initializer_list<std::pair<size_t, uint64_t>> counts) {
  std::vector<uint64_t> b(plan::kHistBuckets, 0);
  for (auto [i, n] : counts) b[i] = n;
  return b;
}

TEST(WindowValue, EachFunction) {
  // 10 values in bucket 1000: (lower, upper] = (104 << 14, 105 << 14] = (1703936, 1720320].
  SeriesDelta d{10, 5000, buckets({{1000, 10}}), 2.0};
  plan::Window w;
  w.function = plan::WindowFunction::Avg;
  EXPECT_DOUBLE_EQ(*window_value(w, d), 500);
  w.function = plan::WindowFunction::Rate;
  EXPECT_DOUBLE_EQ(*window_value(w, d), 5);  // 10 in 2 s
  w.function = plan::WindowFunction::Count;
  EXPECT_DOUBLE_EQ(*window_value(w, d), 10);
  w.function = plan::WindowFunction::Sum;
  EXPECT_DOUBLE_EQ(*window_value(w, d), 5000);
  w.function = plan::WindowFunction::Quantile;
  w.quantile = 0.5;
  EXPECT_DOUBLE_EQ(*window_value(w, d), 1712128);  // halfway through the bucket
  w.function = plan::WindowFunction::Max;
  EXPECT_DOUBLE_EQ(*window_value(w, d), 1720320);
  w.function = plan::WindowFunction::Min;
  EXPECT_DOUBLE_EQ(*window_value(w, d), 1703936);
}

TEST(WindowValue, NoneWithoutObservationsOrTime) {
  SeriesDelta empty{0, 0, buckets({}), 0};
  plan::Window w;
  w.function = plan::WindowFunction::Avg;
  EXPECT_FALSE(window_value(w, empty));
  w.function = plan::WindowFunction::Rate;
  EXPECT_FALSE(window_value(w, empty));
  w.function = plan::WindowFunction::Count;
  EXPECT_DOUBLE_EQ(*window_value(w, empty), 0);  // `count(x) over 1m < 1` can fire
  w.function = plan::WindowFunction::Quantile;
  EXPECT_FALSE(window_value(w, SeriesDelta{3, 3, {}, 1}));  // a count metric has no buckets
}

TEST(Compare, EveryOperator) {
  EXPECT_TRUE(compare_holds(plan::Compare::Gt, 2, 1));
  EXPECT_FALSE(compare_holds(plan::Compare::Gt, 1, 1));
  EXPECT_TRUE(compare_holds(plan::Compare::Ge, 1, 1));
  EXPECT_TRUE(compare_holds(plan::Compare::Lt, 0, 1));
  EXPECT_FALSE(compare_holds(plan::Compare::Lt, 1, 1));
  EXPECT_TRUE(compare_holds(plan::Compare::Le, 1, 1));
  EXPECT_TRUE(compare_holds(plan::Compare::Eq, 1, 1));
  EXPECT_TRUE(compare_holds(plan::Compare::Ne, 1, 2));
  EXPECT_FALSE(compare_holds(plan::Compare::Ne, 2, 2));
}

TEST(WindowUnit, CountAndRateHaveNone) {
  EXPECT_EQ(window_unit(plan::WindowFunction::Quantile, plan::FieldUnit::Ns), plan::FieldUnit::Ns);
  EXPECT_EQ(window_unit(plan::WindowFunction::Sum, plan::FieldUnit::Bytes), plan::FieldUnit::Bytes);
  EXPECT_EQ(window_unit(plan::WindowFunction::Rate, plan::FieldUnit::Ns), plan::FieldUnit::None);
  EXPECT_EQ(window_unit(plan::WindowFunction::Count, plan::FieldUnit::Ns), plan::FieldUnit::None);
}

Snapshot at(int64_t t) {
  return Snapshot{t, std::make_shared<SeriesMap>()};
}

TEST(SnapshotHistory, KeepsTheNewestOneOldEnoughAndNothingOlder) {
  SnapshotHistory h(30, 1);
  for (int64_t t = 0; t <= 60; t += 10) h.add(at(t));
  EXPECT_EQ(h.size(), 4u);  // 30, 40, 50, 60
  EXPECT_EQ(h.baseline(30)->time_ns, 30);
  EXPECT_EQ(h.baseline(35)->time_ns, 30);
  EXPECT_EQ(h.baseline(50)->time_ns, 50);
  EXPECT_EQ(h.baseline(60)->time_ns, 50);  // never the newest itself
  EXPECT_EQ(h.baseline(5)->time_ns, 30);   // none that old: the oldest kept
}

TEST(SnapshotHistory, ThinsSnapshotsCloserThanTheSpacing) {
  SnapshotHistory h(1000, 20);
  for (int64_t t = 0; t <= 100; t += 1) h.add(at(t));
  // Kept: 0, 20, 40, 60, 80 and the newest.
  EXPECT_EQ(h.size(), 6u);
  EXPECT_EQ(h.newest()->time_ns, 100);
  EXPECT_EQ(h.baseline(50)->time_ns, 40);
}

TEST(SnapshotHistory, WithoutWindowsOnlyTheNewest) {
  SnapshotHistory h(0, 0);
  h.add(at(1));
  h.add(at(2));
  EXPECT_EQ(h.size(), 1u);
  EXPECT_EQ(h.baseline(0), nullptr);
}

}  // namespace
}  // namespace seam::runtime::metrics
