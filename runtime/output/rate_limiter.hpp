#pragma once
// `limit N per T` for one rule: a fixed window of T starting at the first alert; within it the
// first N alerts are written and the rest only counted. The count travels on the next alert
// written (Alert::suppressed), or, if none comes, is taken by the pipeline once the window has
// ended (or at exit) and reported as a notice, so no alert disappears without a trace.
// Time is passed in (monotonic ns) so tests decide it.
#include <cstdint>

namespace seam::runtime {

class RateLimiter {
 public:
  // count <= 0 or per_ns <= 0: no limit.
  RateLimiter(int64_t count, int64_t per_ns) : count_(count), per_ns_(per_ns) {}

  struct Admission {
    bool write = false;
    uint64_t suppressed = 0;  // when written: alerts held back before this one, not yet reported
  };
  Admission admit(int64_t now_ns);

  // Held-back alerts not yet reported, when the window they fell in has ended by `now_ns`;
  // the count is reset. 0 while the window is still open.
  uint64_t take_suppressed_if_window_ended(int64_t now_ns);
  // Every held-back alert not yet reported (exit); the count is reset.
  uint64_t take_suppressed();

  uint64_t pending() const { return pending_; }
  // No window open at `now_ns` (none yet, or the last one has ended).
  bool window_ended(int64_t now_ns) const { return !window_open_ || now_ns - window_start_ >= per_ns_; }
  bool limited() const { return count_ > 0 && per_ns_ > 0; }

 private:
  int64_t count_;
  int64_t per_ns_;
  bool window_open_ = false;
  int64_t window_start_ = 0;
  int64_t written_in_window_ = 0;
  uint64_t pending_ = 0;
};

}  // namespace seam::runtime
