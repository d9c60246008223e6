#include "runtime/output/output_loss_reporter.hpp"

#include "runtime/output/queued_sink.hpp"

namespace seam::runtime {
namespace {

// Why an output's counter says it lost records, in a notice; nullptr: not a loss of its own.
const char* why(const std::string& reason) {
  if (reason == "queue_full") return "its queue was full, the output fell behind";
  if (reason == "write_error") return "writing failed";
  return nullptr;
}

}  // namespace

std::vector<Notice> OutputLossReporter::take(std::span<const std::shared_ptr<Sink>> sinks) {
  std::vector<Notice> notices;
  std::vector<metrics::OutputCounter> counters;
  for (const std::shared_ptr<Sink>& sink : sinks) {
    if (!dynamic_cast<const QueuedSink*>(sink.get())) continue;  // a webhook: it tells its own
    counters.clear();
    sink->counters(counters);
    for (const metrics::OutputCounter& c : counters) {
      const char* because = c.counter == "dropped" ? why(c.reason) : nullptr;
      if (!because) continue;
      uint64_t& told = reported_[{c.output, c.reason}];
      if (c.value <= told) continue;
      uint64_t fresh = c.value - told;
      told = c.value;
      notices.push_back(Notice{plan::Severity::Warning, notice_id(NoticeKind::OutputDrops),
                               "output " + c.output + ": " + std::to_string(fresh) +
                                   " alerts and notices lost (" + std::to_string(c.value) +
                                   " in all): " + because,
                               std::nullopt, fresh, c.output});
    }
  }
  return notices;
}

}  // namespace seam::runtime
