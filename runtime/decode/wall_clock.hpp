#pragma once
// Records carry bpf_ktime_get_ns() (CLOCK_MONOTONIC); alerts show wall-clock time. The offset
// between the two clocks is sampled once: per-record clock_gettime calls would cost more than
// decoding, and a wall-clock step during a run should not reorder alerts.
#include <cstdint>

namespace seam::runtime {

// CLOCK_REALTIME - CLOCK_MONOTONIC in ns, sampled now (midpoint of two monotonic reads).
int64_t monotonic_to_realtime_offset_ns();

}  // namespace seam::runtime
