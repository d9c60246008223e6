#include "runtime/metrics/map_fill.hpp"

#include <bpf/bpf.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace seam::runtime::metrics {

Result<uint64_t> count_hash_entries(int map_fd, uint32_t key_size, uint32_t max_entries) {
  std::vector<char> key(key_size), next(key_size);
  // A key deleted under the walk makes get_next_key start over: count distinct keys.
  std::set<std::vector<char>> seen;
  const void* previous = nullptr;
  uint64_t cap = static_cast<uint64_t>(max_entries) * 2 + 16;
  for (uint64_t step = 0; step < cap; ++step) {
    if (bpf_map_get_next_key(map_fd, previous, next.data()) != 0) {
      if (errno == ENOENT) break;
      return Error{std::string("bpf_map_get_next_key: ") + std::strerror(errno), code_of_errno(errno)};
    }
    key = next;
    previous = key.data();
    seen.insert(key);
  }
  return uint64_t{seen.size()};
}

}  // namespace seam::runtime::metrics
