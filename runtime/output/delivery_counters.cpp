#include "runtime/output/delivery_counters.hpp"

namespace seam::runtime {

void append_delivery_counters(const std::string& output, const DeliveryStats& s,
                              std::vector<metrics::OutputCounter>& out) {
  auto counter = [&](const char* name, uint64_t value) { out.push_back({output, name, value, false, ""}); };
  auto gauge = [&](const char* name, uint64_t value) { out.push_back({output, name, value, true, ""}); };
  auto dropped = [&](const char* reason, uint64_t value) {
    out.push_back({output, "dropped", value, false, reason});
  };
  counter("accepted", s.accepted);
  counter("delivered", s.delivered);
  counter("batches_delivered", s.batches_delivered);
  counter("retries", s.retries);
  counter("spooled", s.spooled);
  gauge("queue_depth", s.queue_depth);
  gauge("spool_bytes", s.spool_bytes);
  gauge("spool_batches", s.spool_batches);
  dropped("queue_full", s.dropped_queue_full);
  dropped("spool_full", s.dropped_spool_full);
  dropped("rejected", s.dropped_rejected);
  dropped("at_exit", s.dropped_at_exit);
  dropped("spool_lost", s.dropped_spool_lost);
}

}  // namespace seam::runtime
