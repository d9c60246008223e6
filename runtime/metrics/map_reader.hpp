#pragma once
// Reading a metric's hash map (per-CPU or shared), behind an interface so that tests can feed snapshots made
// by hand. The engine sums the per-CPU values (a shared map reads as one CPU); a reader only copies what the
// map holds.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/diag/result.hpp"
#include "compiler/plan/plan.hpp"

namespace seam::runtime::metrics {

struct PerCpuEntry {
  std::string key;               // Metric::key_size raw bytes
  std::vector<uint64_t> values;  // cpus × words, CPU by CPU, words = Metric::value_size / 8
};

struct MapContents {
  uint32_t cpus = 1;
  std::vector<PerCpuEntry> entries;
};

class MetricMapReader {
 public:
  virtual ~MetricMapReader() = default;
  // Every entry of the metric's map now, or why it cannot be read.
  virtual Result<MapContents> read(const plan::Metric& metric) = 0;
};

// Reads the metric maps through libbpf (bpf_map_get_next_key, bpf_map_lookup_elem over
// libbpf_num_possible_cpus() for BPF_MAP_TYPE_PERCPU_HASH, one value for a shared hash); map_fd gives the fd
// of a map by name (negative: unknown).
std::unique_ptr<MetricMapReader> bpf_map_reader(std::function<int(const std::string& map_name)> map_fd);

}  // namespace seam::runtime::metrics
