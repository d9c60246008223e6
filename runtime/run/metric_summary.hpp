#pragma once
// The terminal summary of metrics that `seam run` prints at exit and every --report period,
// like bpftrace's maps at Ctrl-C: a histogram as bars per series with its count and
// percentiles, a count or sum per series, values in the metric's unit (1.5ms, 4KiB).
#include <string>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/metrics/series.hpp"

namespace seam::runtime {

// One metric's block, ending in a blank line; "" when it has no series yet.
std::string metric_summary(const plan::Metric& metric, const std::vector<metrics::Series>& series);

// 1500000 in Ns as "1.5ms", 4096 in Bytes as "4KiB", plain numbers as they are.
std::string unit_text(double value, plan::FieldUnit unit);

}  // namespace seam::runtime
