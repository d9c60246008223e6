#include "runtime/run/bpf_fill.hpp"

#include <bpf/bpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

#include "runtime/metrics/map_fill.hpp"

namespace seam::runtime {

RingbufFill::RingbufFill(int fd) {
  if (fd < 0) return;
  bpf_map_info info{};
  uint32_t len = sizeof info;
  if (bpf_obj_get_info_by_fd(fd, &info, &len) != 0 || info.max_entries == 0) return;
  page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_ = info.max_entries;
  // Page 0 holds the consumer position, page 1 the producer position (then the data).
  void* c = mmap(nullptr, page_, PROT_READ, MAP_SHARED, fd, 0);
  if (c == MAP_FAILED) return;
  void* p = mmap(nullptr, page_, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(page_));
  if (p == MAP_FAILED) {
    munmap(c, page_);
    return;
  }
  consumer_page_ = c;
  producer_page_ = p;
  consumer_ = static_cast<const volatile uint64_t*>(c);
  producer_ = static_cast<const volatile uint64_t*>(p);
}

RingbufFill::~RingbufFill() {
  if (consumer_page_) munmap(consumer_page_, page_);
  if (producer_page_) munmap(producer_page_, page_);
}

std::optional<double> RingbufFill::ratio() const {
  if (!consumer_ || !producer_ || size_ == 0) return std::nullopt;
  uint64_t consumer = *consumer_;
  uint64_t producer = *producer_;
  uint64_t unread = producer >= consumer ? producer - consumer : 0;
  return std::min(1.0, static_cast<double>(unread) / static_cast<double>(size_));
}

std::vector<metrics::MapFill> state_map_fill(const plan::Plan& plan,
                                             const std::function<int(const std::string&)>& map_fd) {
  std::vector<metrics::MapFill> out;
  for (const plan::Map& m : plan.maps) {
    if (m.type != plan::MapType::Hash && m.type != plan::MapType::LruHash) continue;
    if (std::any_of(plan.metrics.begin(), plan.metrics.end(),
                    [&](const plan::Metric& metric) { return metric.map == m.name; }))
      continue;
    int fd = map_fd(m.name);
    if (fd < 0) continue;
    Result<uint64_t> entries = metrics::count_hash_entries(fd, m.key_size, m.max_entries);
    if (!entries) continue;
    out.push_back({m.name, *entries, m.max_entries, std::nullopt});
  }
  return out;
}

}  // namespace seam::runtime
