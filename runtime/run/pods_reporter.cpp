#include "runtime/run/pods_reporter.hpp"

namespace seam::runtime {

std::optional<Notice> PodsReporter::check() {
  if (!pods_ || pods_->fetches() == 0) return std::nullopt;
  std::string error = pods_->last_error();
  if (!error.empty() && !failing_) {
    failing_ = true;
    return Notice{plan::Severity::Warning, notice_id(NoticeKind::PodsUnavailable),
                  "cannot read the pod list from " + shown_url_ + ": " + error +
                      "; alerts keep their pod UID without name and namespace (retried, reported again "
                      "when it works)",
                  std::nullopt, 0};
  }
  if (error.empty() && failing_) {
    failing_ = false;
    return Notice{plan::Severity::Info, notice_id(NoticeKind::PodsAvailable),
                  "pod list from " + shown_url_ + " read again", std::nullopt, 0};
  }
  return std::nullopt;
}

}  // namespace seam::runtime
