// The log-linear histogram layout (compiler/plan/hist_layout.hpp) and what is read from it:
// bucket bounds, quantiles within 2% of the exact ones, the fixed Prometheus bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "compiler/plan/hist_layout.hpp"
#include "runtime/metrics/histogram.hpp"

namespace seam::runtime::metrics {
namespace {

TEST(HistLayout, EveryValueFallsInsideItsBucket) {
  for (uint64_t v : {0ull,
                     1ull,
                     2ull,
                     63ull,
                     64ull,
                     65ull,
                     66ull,
                     127ull,
                     128ull,
                     129ull,
                     130ull,
                     131ull,
                     1000ull,
                     4096ull,
                     4097ull,
                     999'999ull,
                     1'000'000ull,
                     60'000'000ull,
                     (1ull << 40) - 1,
                     1ull << 40}) {
    uint32_t i = plan::hist_bucket_of(v);
    ASSERT_LT(i, plan::kHistBuckets) << v;
    EXPECT_LE(v, plan::hist_bucket_upper(i)) << v;
    if (v > 0) {
      EXPECT_GT(v, plan::hist_bucket_lower(i)) << v;
    }
  }
  EXPECT_EQ(plan::hist_bucket_of((1ull << 40) + 1), plan::kHistBuckets - 1);  // beyond: the last
  EXPECT_EQ(plan::hist_bucket_of(~0ull), plan::kHistBuckets - 1);
}

TEST(HistLayout, BucketsTileTheRangeAndAreAtMostOneSixtyFourthWide) {
  for (uint32_t i = 1; i < plan::kHistBuckets; ++i) {
    uint64_t lower = plan::hist_bucket_lower(i), upper = plan::hist_bucket_upper(i);
    ASSERT_EQ(lower, plan::hist_bucket_upper(i - 1)) << i;
    ASSERT_LT(lower, upper) << i;
    if (i < plan::kHistSub)
      ASSERT_EQ(upper - lower, 1u) << i;  // exact: holds one integer value
    else
      ASSERT_LE(static_cast<double>(upper - lower) / static_cast<double>(lower), 1.0 / 64) << i;
    ASSERT_EQ(plan::hist_bucket_of(upper), i) << i;
    ASSERT_EQ(plan::hist_bucket_of(lower + 1), i) << i;
  }
  EXPECT_EQ(plan::hist_bucket_upper(plan::kHistBuckets - 1), 1ull << 40);
}

// The kernel's copy of the layout (bpf-templates/seam_rules.h) names the same constants.
TEST(HistLayout, TheKernelHeaderAgrees) {
  std::ifstream in(std::string(SEAM_SOURCE_DIR) + "/bpf-templates/seam_rules.h");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("#define SEAM_HIST_SUB_BITS " + std::to_string(plan::kHistSubBits) + "\n"),
            std::string::npos);
  EXPECT_NE(text.str().find("#define SEAM_HIST_TOP_BITS " + std::to_string(plan::kHistTopBits) + "\n"),
            std::string::npos);
}

std::vector<uint64_t> histogram_of(const std::vector<uint64_t>& values) {
  std::vector<uint64_t> buckets(plan::kHistBuckets, 0);
  for (uint64_t v : values) ++buckets[plan::hist_bucket_of(v)];
  return buckets;
}

// The exact q-quantile: the smallest value with at least q × n values at or below it.
double exact_quantile(std::vector<uint64_t> values, double q) {
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  return static_cast<double>(values[rank == 0 ? 0 : rank - 1]);
}

TEST(HistogramQuantile, WithinTwoPercentOfTheExactQuantile) {
  std::mt19937_64 random(7);
  std::lognormal_distribution<double> latency(std::log(4e6), 0.6);  // around 4 ms, long tail
  std::uniform_int_distribution<uint64_t> uniform(1, 70'000'000);
  for (int round = 0; round < 20; ++round) {
    std::vector<uint64_t> values;
    for (int i = 0; i < 1000; ++i)
      values.push_back(round % 2 ? uniform(random) : static_cast<uint64_t>(latency(random)));
    std::vector<uint64_t> buckets = histogram_of(values);
    for (double q : {0.5, 0.9, 0.99, 0.999}) {
      double exact = exact_quantile(values, q);
      EXPECT_NEAR(*histogram_quantile(buckets, q), exact, exact * 0.02) << "q " << q << " round " << round;
    }
  }
}

TEST(HistogramQuantile, SixtyMillisecondsIsNotSixtyFive) {
  // The case: 60 ms calls read as 65 ms with power-of-two buckets.
  std::vector<uint64_t> buckets = histogram_of(std::vector<uint64_t>(100, 60'000'000));
  EXPECT_NEAR(*histogram_quantile(buckets, 0.99), 60e6, 60e6 / 64);
}

TEST(HistogramQuantile, SmallValuesAreExact) {
  std::vector<uint64_t> buckets = histogram_of({3, 3, 5, 7});
  EXPECT_DOUBLE_EQ(*histogram_quantile(buckets, 0.5), 3);
  EXPECT_DOUBLE_EQ(*histogram_quantile(buckets, 0.75), 5);
  EXPECT_DOUBLE_EQ(*histogram_quantile(buckets, 1), 7);
}

TEST(HistogramQuantile, InterpolatesWithinTheBucket) {
  std::vector<uint64_t> buckets(plan::kHistBuckets, 0);
  buckets[1000] = 10;  // (1703936, 1720320]
  EXPECT_DOUBLE_EQ(*histogram_quantile(buckets, 0.5), 1712128);
  EXPECT_DOUBLE_EQ(*histogram_quantile(buckets, 0), 1703936);
  EXPECT_DOUBLE_EQ(*histogram_quantile(buckets, 1), 1720320);
}

TEST(HistogramQuantile, EmptyHasNoValue) {
  EXPECT_FALSE(histogram_quantile(std::vector<uint64_t>(plan::kHistBuckets, 0), 0.99));
  EXPECT_FALSE(histogram_quantile({}, 0.5));
}

TEST(PrometheusBounds, FixedExactBucketBoundsPerUnit) {
  const std::vector<uint64_t>& ns = prometheus_bounds(plan::FieldUnit::Ns);
  ASSERT_FALSE(ns.empty());
  EXPECT_EQ(ns.front(), 1024u);
  EXPECT_EQ(ns[1], 1536u);
  EXPECT_EQ(ns.back(), 1ull << 36);
  EXPECT_EQ(ns.size(), 53u);  // 26 powers of two and their midpoints, then 2^36
  EXPECT_EQ(prometheus_bounds(plan::FieldUnit::Bytes).front(), 1u);
  EXPECT_EQ(prometheus_bounds(plan::FieldUnit::Bytes), prometheus_bounds(plan::FieldUnit::None));
  for (uint64_t bound : prometheus_bounds(plan::FieldUnit::Bytes))
    EXPECT_EQ(plan::hist_bucket_upper(plan::hist_bucket_of(bound)), bound) << bound;
  EXPECT_TRUE(std::is_sorted(ns.begin(), ns.end()));
}

TEST(CountAtOrBelow, CountsWholeBuckets) {
  std::vector<uint64_t> buckets = histogram_of({1000, 1536, 1537, 2048, 5000});
  EXPECT_EQ(count_at_or_below(buckets, 1024), 1u);
  EXPECT_EQ(count_at_or_below(buckets, 1536), 2u);
  EXPECT_EQ(count_at_or_below(buckets, 2048), 4u);
  EXPECT_EQ(count_at_or_below(buckets, 1ull << 36), 5u);
}

}  // namespace
}  // namespace seam::runtime::metrics
