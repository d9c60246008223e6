#pragma once
// Consumes the seam_events ring buffer. Programs submit without waking the reader until the
// ring holds SEAM_WAKEUP_BYTES unread (seam_record.h), so epoll alone would hold records back:
// poll() waits in short slices and always consumes after each, delivering every record within
// about kConsumeIntervalMs while costing one wakeup per batch instead of one per record.
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

struct ring_buffer;

namespace seam::runtime {

class EventReader {
 public:
  using RecordFn = std::function<void(std::span<const uint8_t>)>;
  static constexpr int kConsumeIntervalMs = 10;

  // `ringbuf_fd`: the seam_events map (LoadedObject::ringbuf_fd()). Check ok() afterwards.
  explicit EventReader(int ringbuf_fd);
  ~EventReader();
  EventReader(const EventReader&) = delete;
  EventReader& operator=(const EventReader&) = delete;

  bool ok() const { return rb_ != nullptr; }
  const std::string& error() const { return error_; }

  // Waits up to timeout_ms for records (returning early once some were delivered or stop()
  // was called) and hands each to on_record, on this thread. Returns the number delivered,
  // or -errno. A record's bytes are valid only during the call.
  int poll(const RecordFn& on_record, int timeout_ms);
  // Delivers whatever is in the ring now, without waiting.
  int consume(const RecordFn& on_record);

  // Makes a blocked poll() return now, and every later one without waiting (thread-safe).
  void stop();
  bool stopped() const { return stopped_.load(); }

  uint64_t delivered() const { return delivered_.load(); }

 private:
  static int on_sample(void* ctx, void* data, size_t size);
  int consume_now();

  ring_buffer* rb_ = nullptr;
  int epoll_fd_ = -1;  // the ring's epoll fd and the stop eventfd
  int stop_fd_ = -1;
  const RecordFn* current_ = nullptr;
  int batch_ = 0;
  std::atomic<bool> stopped_{false};
  std::atomic<uint64_t> delivered_{0};
  std::string error_;
};

}  // namespace seam::runtime
