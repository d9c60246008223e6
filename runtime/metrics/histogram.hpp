#pragma once
// Reading seam's histograms (the layout is compiler/plan/hist_layout.hpp): quantiles, the fixed
// Prometheus bucket set, and counts at a bound. The windowed rules, /metrics and the exit summary
// all read buckets through these.
#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/plan/plan.hpp"

namespace seam::runtime::metrics {

// The q-quantile (0..1) of bucket counts (plan::kHistBuckets of them, or fewer), interpolated
// linearly within the bucket that holds the rank q × total; a bucket one unit wide gives its
// value exactly. Within 1/64 of the true quantile (the bucket's width). q = 0 gives the lowest
// non-empty bucket's lower bound, q = 1 the highest one's upper bound. nullopt when empty.
std::optional<double> histogram_quantile(const std::vector<uint64_t>& buckets, double q);

// The `le` bounds served on /metrics for a metric in `unit`, in base units (ns, bytes): every
// power of two and the midpoint 1.5 × 2^e between two of them, from 2^10 ns (about 1 µs) or
// from 1 for other units, up to 2^36 (about 69 s, 64 GiB). The same set from the first scrape
// on, whatever was observed; each bound is an exact bucket bound.
const std::vector<uint64_t>& prometheus_bounds(plan::FieldUnit unit);

// How many observations are at or below `bound` (an upper bound of some bucket).
uint64_t count_at_or_below(const std::vector<uint64_t>& buckets, uint64_t bound);

}  // namespace seam::runtime::metrics
