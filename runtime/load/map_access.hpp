#pragma once
// Reading BPF maps from user space: the per-CPU counters the runtime reports.
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/diag/result.hpp"

namespace seam::runtime {

// Sums a BPF_MAP_TYPE_PERCPU_ARRAY of u64 over all possible CPUs: entry i of the result is
// the total of key i; the error says why the map could not be read.
Result<std::vector<uint64_t>> read_percpu_u64_sums(int map_fd, uint32_t entries);

// The CPUs in /sys/devices/system/cpu/online ("0-3,8"): where per-CPU perf events go.
std::vector<int> online_cpus();

}  // namespace seam::runtime
