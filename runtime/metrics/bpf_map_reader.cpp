#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "runtime/metrics/map_reader.hpp"

namespace seam::runtime::metrics {

namespace {

class BpfMapReader final : public MetricMapReader {
 public:
  explicit BpfMapReader(std::function<int(const std::string&)> map_fd) : map_fd_(std::move(map_fd)) {}

  Result<MapContents> read(const plan::Metric& metric) override {
    auto fail = [&](const std::string& why, ErrorCode code = ErrorCode::Failed) -> Result<MapContents> {
      return Error{"metric " + metric.name + " (map " + metric.map + "): " + why, code};
    };
    int fd = map_fd_ ? map_fd_(metric.map) : -1;
    if (fd < 0) return fail("the map is not loaded", ErrorCode::NotFound);
    // A per-CPU map copies round_up(value_size, 8) bytes per possible CPU; a shared one, one value.
    int cpus = metric.per_cpu ? libbpf_num_possible_cpus() : 1;
    if (cpus <= 0) return fail("cannot count possible CPUs: " + std::string(std::strerror(-cpus)));
    size_t words = (metric.value_size + 7) / 8;
    MapContents contents;
    contents.cpus = static_cast<uint32_t>(cpus);
    std::string key(metric.key_size, '\0'), next(metric.key_size, '\0');
    std::set<std::string> seen;
    // A key deleted under the walk makes get_next_key start over: `seen` keeps entries unique
    // and the cap keeps the walk finite.
    size_t cap = static_cast<size_t>(metric.max_series) * 4 + 64;
    const void* previous = nullptr;
    for (size_t step = 0; step < cap; ++step) {
      if (bpf_map_get_next_key(fd, previous, next.data()) != 0) {
        if (errno == ENOENT) break;
        return fail(std::string("bpf_map_get_next_key: ") + std::strerror(errno), code_of_errno(errno));
      }
      key = next;
      previous = key.data();
      if (!seen.insert(key).second) continue;
      PerCpuEntry entry{key, std::vector<uint64_t>(words * static_cast<size_t>(cpus), 0)};
      if (bpf_map_lookup_elem(fd, key.data(), entry.values.data()) != 0) {
        if (errno == ENOENT) continue;  // deleted between the two calls
        return fail(std::string("bpf_map_lookup_elem: ") + std::strerror(errno), code_of_errno(errno));
      }
      contents.entries.push_back(std::move(entry));
    }
    return contents;
  }

 private:
  std::function<int(const std::string&)> map_fd_;
};

}  // namespace

std::unique_ptr<MetricMapReader> bpf_map_reader(std::function<int(const std::string& map_name)> map_fd) {
  return std::make_unique<BpfMapReader>(std::move(map_fd));
}

}  // namespace seam::runtime::metrics
