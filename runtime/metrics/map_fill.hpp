#pragma once
// How full a BPF hash map is, for seam_map_entries: the kernel keeps no count user space can read
// on every kernel seam supports, so the keys are walked and counted.
#include <cstdint>
#include <optional>
#include <string>

namespace seam::runtime::metrics {

// The number of keys in the hash map (any hash type), counting at most max_entries × 2 steps so a
// map churning under the walk cannot hold it. nullopt with *error set when the map cannot be read.
std::optional<uint64_t> count_hash_entries(int map_fd, uint32_t key_size, uint32_t max_entries,
                                           std::string* error);

}  // namespace seam::runtime::metrics
