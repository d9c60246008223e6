#pragma once
// A webhook's DeliveryStats as seam's own metrics: seam_output_<counter>{output} counters,
// queue_depth/spool_bytes/spool_batches as gauges, and every drop reason as
// seam_output_dropped_total{output,reason} (each reason is always present, 0 until it happens).
#include <string>
#include <vector>

#include "runtime/metrics/self_stats.hpp"
#include "runtime/output/webhook_delivery.hpp"

namespace seam::runtime {

void append_delivery_counters(const std::string& output, const DeliveryStats& stats,
                              std::vector<metrics::OutputCounter>& out);

}  // namespace seam::runtime
