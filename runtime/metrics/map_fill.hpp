#pragma once
// How full a BPF hash map is, for seam_map_entries: the kernel keeps no count user space can read
// on every kernel seam supports, so the keys are walked and counted.
#include <cstdint>

#include "compiler/diag/result.hpp"

namespace seam::runtime::metrics {

// The number of keys in the hash map (any hash type), counting at most max_entries × 2 steps so a
// map churning under the walk cannot hold it; an error when the map cannot be read.
Result<uint64_t> count_hash_entries(int map_fd, uint32_t key_size, uint32_t max_entries);

}  // namespace seam::runtime::metrics
