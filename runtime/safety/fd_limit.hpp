#pragma once
// seam holds descriptors for rings, links, outputs, metric connections and libraries it reads;
// a low soft limit (1,024 under systemd) is the first thing an exec storm exhausts.
#include <cstdint>

namespace seam::runtime {

// Raises RLIMIT_NOFILE's soft limit to the hard limit (no privilege needed). Returns the new
// soft limit, or the old one when it cannot be raised.
uint64_t raise_fd_limit();

}  // namespace seam::runtime
