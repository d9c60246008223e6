#include "runtime/metrics/window_math.hpp"

#include "runtime/metrics/histogram.hpp"

namespace seam::runtime::metrics {

std::optional<double> window_value(const plan::Window& window, const SeriesDelta& delta) {
  switch (window.function) {
    case plan::WindowFunction::Quantile:
      return histogram_quantile(delta.buckets, window.quantile);
    case plan::WindowFunction::Min:
      return histogram_quantile(delta.buckets, 0);
    case plan::WindowFunction::Max:
      return histogram_quantile(delta.buckets, 1);
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
