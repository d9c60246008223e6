#include "runtime/output/rate_limiter.hpp"

namespace seam::runtime {

RateLimiter::Admission RateLimiter::admit(int64_t now_ns) {
  if (!limited()) return {true, 0};
  if (!window_open_ || now_ns - window_start_ >= per_ns_) {
    window_open_ = true;
    window_start_ = now_ns;
    written_in_window_ = 0;
  }
  if (written_in_window_ < count_) {
    ++written_in_window_;
    Admission a{true, pending_};
    pending_ = 0;
    return a;
  }
  ++pending_;
  return {false, 0};
}

uint64_t RateLimiter::take_suppressed_if_window_ended(int64_t now_ns) {
  if (pending_ == 0 || !window_open_ || now_ns - window_start_ < per_ns_) return 0;
  return take_suppressed();
}

uint64_t RateLimiter::take_suppressed() {
  uint64_t n = pending_;
  pending_ = 0;
  return n;
}

}  // namespace seam::runtime
