#include "runtime/decode/wall_clock.hpp"

#include <time.h>

namespace seam::runtime {
namespace {

int64_t read_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

int64_t monotonic_to_realtime_offset_ns() {
  // Take the tightest of a few samples, so a preemption between the reads does not skew it.
  int64_t best_gap = INT64_MAX;
  int64_t offset = 0;
  for (int i = 0; i < 3; ++i) {
    int64_t before = read_ns(CLOCK_MONOTONIC);
    int64_t real = read_ns(CLOCK_REALTIME);
    int64_t after = read_ns(CLOCK_MONOTONIC);
    if (after - before < best_gap) {
      best_gap = after - before;
      offset = real - (before + (after - before) / 2);
    }
  }
  return offset;
}

}  // namespace seam::runtime
