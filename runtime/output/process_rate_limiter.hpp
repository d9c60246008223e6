#pragma once
// A rule's `limit N per T`, kept per rule or, with `per process`, per process (pid: the thread
// group): each process gets its own N alerts per window, so one noisy process cannot use up the
// rule's alerts and hide another's first one. At most `max_processes` processes are tracked at
// once (an entry is dropped once its window has ended with nothing held back); alerts of further
// processes, and of pid 0 (no process), share the rule-wide counter.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>

#include "runtime/output/rate_limiter.hpp"

namespace seam::runtime {

class ProcessRateLimiter {
 public:
  static constexpr size_t kMaxProcesses = 4096;

  ProcessRateLimiter(int64_t count, int64_t per_ns, bool per_process, size_t max_processes = kMaxProcesses)
      : count_(count),
        per_ns_(per_ns),
        per_process_(per_process),
        max_processes_(max_processes),
        rule_(count, per_ns) {}

  // `pid` is ignored unless the limit is per process.
  RateLimiter::Admission admit(uint32_t pid, int64_t now_ns);

  // Hands held-back counts to `report` with their pid (0: the rule-wide counter): those whose
  // window has ended by `now_ns`, or with `all` every one. Forgets processes whose window ended.
  void take_suppressed(int64_t now_ns, bool all,
                       const std::function<void(uint32_t pid, uint64_t count)>& report);

  // True once, the first time a process found the table full (for a notice).
  bool take_overflow() {
    bool o = overflow_ && !overflow_reported_;
    overflow_reported_ = overflow_reported_ || overflow_;
    return o;
  }
  size_t tracked() const { return processes_.size(); }
  bool per_process() const { return per_process_; }
  size_t max_processes() const { return max_processes_; }

 private:
  int64_t count_;
  int64_t per_ns_;
  bool per_process_;
  size_t max_processes_;
  RateLimiter rule_;  // rules without `per process`, pid 0, processes past the cap
  std::unordered_map<uint32_t, RateLimiter> processes_;
  bool overflow_ = false;
  bool overflow_reported_ = false;
};

}  // namespace seam::runtime
