#include "runtime/metrics/histogram.hpp"

#include <algorithm>

namespace seam::runtime::metrics {

namespace {

std::vector<uint64_t> bounds_from(uint32_t lowest_exponent) {
  constexpr uint32_t kTopExponent = 36;
  std::vector<uint64_t> bounds;
  for (uint32_t e = lowest_exponent; e < kTopExponent; ++e) {
    bounds.push_back(uint64_t{1} << e);
    if (e >= 1) bounds.push_back(uint64_t{3} << (e - 1));  // 1.5 × 2^e
  }
  bounds.push_back(uint64_t{1} << kTopExponent);
  return bounds;
}

}  // namespace

std::optional<double> histogram_quantile(const std::vector<uint64_t>& buckets, double q) {
  uint64_t total = 0;
  for (uint64_t b : buckets) total += b;
  if (total == 0) return std::nullopt;
  q = std::clamp(q, 0.0, 1.0);
  double rank = q * static_cast<double>(total);
  uint64_t below = 0;
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (buckets[i] == 0) continue;
    if (static_cast<double>(below + buckets[i]) >= rank) {
      auto lower = static_cast<double>(plan::hist_bucket_lower(static_cast<uint32_t>(i)));
      auto upper = static_cast<double>(plan::hist_bucket_upper(static_cast<uint32_t>(i)));
      if (i > 0 && upper - lower == 1) return upper;  // holds one integer value
      double within = (rank - static_cast<double>(below)) / static_cast<double>(buckets[i]);
      return lower + (upper - lower) * within;
    }
    below += buckets[i];
  }
  return std::nullopt;  // unreachable: the last non-empty bucket's cumulative count is the total
}

const std::vector<uint64_t>& prometheus_bounds(plan::FieldUnit unit) {
  static const std::vector<uint64_t> durations = bounds_from(10);
  static const std::vector<uint64_t> others = bounds_from(0);
  return unit == plan::FieldUnit::Ns ? durations : others;
}

uint64_t count_at_or_below(const std::vector<uint64_t>& buckets, uint64_t bound) {
  uint64_t n = 0;
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (plan::hist_bucket_upper(static_cast<uint32_t>(i)) > bound) break;
    n += buckets[i];
  }
  return n;
}

}  // namespace seam::runtime::metrics
