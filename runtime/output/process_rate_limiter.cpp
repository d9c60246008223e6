#include "runtime/output/process_rate_limiter.hpp"

namespace seam::runtime {

RateLimiter::Admission ProcessRateLimiter::admit(uint32_t pid, int64_t now_ns) {
  if (!per_process_ || pid == 0 || !rule_.limited()) return rule_.admit(now_ns);
  auto it = processes_.find(pid);
  if (it == processes_.end()) {
    if (processes_.size() >= max_processes_) {
      overflow_ = true;
      return rule_.admit(now_ns);
    }
    it = processes_.emplace(pid, RateLimiter(count_, per_ns_)).first;
  }
  return it->second.admit(now_ns);
}

void ProcessRateLimiter::take_suppressed(int64_t now_ns, bool all,
                                         const std::function<void(uint32_t pid, uint64_t count)>& report) {
  uint64_t n = all ? rule_.take_suppressed() : rule_.take_suppressed_if_window_ended(now_ns);
  if (n > 0) report(0, n);
  for (auto it = processes_.begin(); it != processes_.end();) {
    n = all ? it->second.take_suppressed() : it->second.take_suppressed_if_window_ended(now_ns);
    if (n > 0) report(it->first, n);
    // An ended window holds nothing the next alert needs: a new one starts with it anyway.
    if (!all && it->second.window_ended(now_ns))
      it = processes_.erase(it);
    else
      ++it;
  }
}

}  // namespace seam::runtime
