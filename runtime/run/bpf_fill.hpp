#pragma once
// How full seam's own BPF maps are, for seam_ringbuf_fill_ratio and seam_map_entries: the ring
// buffer's unread bytes (producer − consumer position, read from its mmap'd position pages, which
// works on libbpf 1.1 that lacks ring__avail_data_size), and the entries of the state, span and
// correlation hash maps (keys walked: one syscall per entry, ~1 µs each: a full 16384-entry map
// takes ~17 ms, on the reader's thread, so they are recounted only every few seconds).
// Evictions of the LRU maps are not counted: the kernel keeps no eviction counter user space can
// read, so seam_map_evictions_total is not served for them (see docs/metrics.md).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/metrics/self_stats.hpp"

namespace seam::runtime {

class RingbufFill {
 public:
  explicit RingbufFill(int ringbuf_fd);  // maps the two position pages read-only
  ~RingbufFill();
  RingbufFill(const RingbufFill&) = delete;
  RingbufFill& operator=(const RingbufFill&) = delete;

  // Unread bytes / size, 0..1; nullopt when the positions could not be mapped.
  std::optional<double> ratio() const;

 private:
  const volatile uint64_t* consumer_ = nullptr;
  const volatile uint64_t* producer_ = nullptr;
  void* consumer_page_ = nullptr;
  void* producer_page_ = nullptr;
  size_t page_ = 0;
  uint64_t size_ = 0;
};

// Entries of the plan's hash and LRU hash maps, metric maps excepted (the metrics engine counts
// those as it reads them). A map that cannot be read is left out.
std::vector<metrics::MapFill> state_map_fill(const plan::Plan& plan,
                                             const std::function<int(const std::string&)>& map_fd);

// state_map_fill() recounted at most every `interval_ms`, the last count served in between.
class StateMapFill {
 public:
  StateMapFill(const plan::Plan& plan, std::function<int(const std::string&)> map_fd,
               int64_t interval_ms = 5000)
      : plan_(plan), map_fd_(std::move(map_fd)), interval_ms_(interval_ms) {}
  const std::vector<metrics::MapFill>& get(int64_t now_ms) {
    if (!counted_ || now_ms >= next_ms_) {
      fill_ = state_map_fill(plan_, map_fd_);
      counted_ = true;
      next_ms_ = now_ms + interval_ms_;
    }
    return fill_;
  }

 private:
  const plan::Plan& plan_;
  std::function<int(const std::string&)> map_fd_;
  int64_t interval_ms_;
  bool counted_ = false;
  int64_t next_ms_ = 0;
  std::vector<metrics::MapFill> fill_;
};

}  // namespace seam::runtime
