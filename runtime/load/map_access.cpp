#include "runtime/load/map_access.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace seam::runtime {

Result<std::vector<uint64_t>> read_percpu_u64_sums(int map_fd, uint32_t entries) {
  int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0) return Error{"cannot count possible CPUs: " + std::string(std::strerror(-cpus))};
  std::vector<uint64_t> per_cpu(static_cast<size_t>(cpus));  // u64 values need no padding
  std::vector<uint64_t> sums(entries, 0);
  for (uint32_t key = 0; key < entries; ++key) {
    if (bpf_map_lookup_elem(map_fd, &key, per_cpu.data()) != 0)
      return Error{"reading per-CPU map key " + std::to_string(key) + ": " + std::strerror(errno)};
    for (uint64_t v : per_cpu) sums[key] += v;
  }
  return sums;
}

std::vector<int> online_cpus() {
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string text;
  std::getline(in, text);
  std::vector<int> cpus;
  std::stringstream ranges(text);
  std::string range;
  while (std::getline(ranges, range, ',')) {
    if (range.empty()) continue;
    size_t dash = range.find('-');
    int first = std::stoi(range.substr(0, dash));
    int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
    for (int c = first; c <= last; ++c) cpus.push_back(c);
  }
  return cpus;
}

}  // namespace seam::runtime
