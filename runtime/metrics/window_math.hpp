#pragma once
// The functions of windowed rules over the change of one series between two snapshots.
#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/plan/plan.hpp"

namespace seam::runtime::metrics {

struct SeriesDelta {
  uint64_t count = 0;
  uint64_t sum = 0;
  std::vector<uint64_t> buckets;
  double seconds = 0;  // between the two snapshots
};

// The window function's value, or nullopt where it has none (no observations for quantile, avg,
// min, max; no buckets for quantile, min, max; no elapsed time for rate).
std::optional<double> window_value(const plan::Window& window, const SeriesDelta& delta);

bool compare_holds(plan::Compare compare, double value, double threshold);

// The unit of a window function's value: the metric's for quantile/avg/min/max/sum, none for
// count and rate.
plan::FieldUnit window_unit(plan::WindowFunction function, plan::FieldUnit metric_unit);

}  // namespace seam::runtime::metrics
