#include "runtime/metrics/window_math.hpp"

#include <cmath>

namespace seam::runtime::metrics {

std::optional<double> bucket_quantile(const std::vector<uint64_t>& buckets, double q) {
  uint64_t total = 0;
  for (uint64_t b : buckets) total += b;
  if (total == 0) return std::nullopt;
  if (q < 0) q = 0;
  if (q > 1) q = 1;
  double rank = q * static_cast<double>(total);
  uint64_t below = 0;
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (buckets[i] == 0) continue;
    double cumulative = static_cast<double>(below + buckets[i]);
    if (cumulative >= rank) {
      double lower = i == 0 ? 0 : std::ldexp(1.0, static_cast<int>(i) - 1);
      double upper = std::ldexp(1.0, static_cast<int>(i));
      double within = (rank - static_cast<double>(below)) / static_cast<double>(buckets[i]);
      return lower + (upper - lower) * within;
    }
    below += buckets[i];
  }
  return std::nullopt;  // unreachable: the last non-empty bucket's cumulative count is the total
}

std::optional<double> window_value(const plan::Window& window, const SeriesDelta& delta) {
  switch (window.function) {
    case plan::WindowFunction::Quantile:
      return bucket_quantile(delta.buckets, window.quantile);
    case plan::WindowFunction::Min:
      return bucket_quantile(delta.buckets, 0);
    case plan::WindowFunction::Max:
      return bucket_quantile(delta.buckets, 1);
    case plan::WindowFunction::Avg:
      if (delta.count == 0) return std::nullopt;
      return static_cast<double>(delta.sum) / static_cast<double>(delta.count);
    case plan::WindowFunction::Count:
      return static_cast<double>(delta.count);
    case plan::WindowFunction::Sum:
      return static_cast<double>(delta.sum);
    case plan::WindowFunction::Rate:
      if (delta.seconds <= 0) return std::nullopt;
      return static_cast<double>(delta.count) / delta.seconds;
  }
  return std::nullopt;
}

bool compare_holds(plan::Compare compare, double value, double threshold) {
  switch (compare) {
    case plan::Compare::Gt:
      return value > threshold;
    case plan::Compare::Ge:
      return value >= threshold;
    case plan::Compare::Lt:
      return value < threshold;
    case plan::Compare::Le:
      return value <= threshold;
    case plan::Compare::Eq:
      return value == threshold;
    case plan::Compare::Ne:
      return value != threshold;
  }
  return false;
}

plan::FieldUnit window_unit(plan::WindowFunction function, plan::FieldUnit metric_unit) {
  return function == plan::WindowFunction::Count || function == plan::WindowFunction::Rate
             ? plan::FieldUnit::None
             : metric_unit;
}

}  // namespace seam::runtime::metrics
