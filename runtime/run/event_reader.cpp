#include "runtime/run/event_reader.hpp"

#include <bpf/libbpf.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace seam::runtime {

EventReader::EventReader(int ringbuf_fd) {
  rb_ = ring_buffer__new(ringbuf_fd, &EventReader::on_sample, this, nullptr);
  if (!rb_) {
    error_ = std::string("cannot open the ring buffer: ") + std::strerror(errno);
    return;
  }
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event ring{}, stop{};
  ring.events = EPOLLIN;
  ring.data.u32 = 0;
  stop.events = EPOLLIN;
  stop.data.u32 = 1;
  if (epoll_fd_ < 0 || stop_fd_ < 0 ||
      epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, ring_buffer__epoll_fd(rb_), &ring) != 0 ||
      epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, stop_fd_, &stop) != 0) {
    error_ = std::string("cannot set up polling: ") + std::strerror(errno);
    ring_buffer__free(rb_);
    rb_ = nullptr;
  }
}

EventReader::~EventReader() {
  if (rb_) ring_buffer__free(rb_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (stop_fd_ >= 0) close(stop_fd_);
}

int EventReader::on_sample(void* ctx, void* data, size_t size) {
  auto* self = static_cast<EventReader*>(ctx);
  (*self->current_)(std::span<const uint8_t>(static_cast<const uint8_t*>(data), size));
  ++self->batch_;
  self->delivered_.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

int EventReader::consume_now() {
  batch_ = 0;
  int err = ring_buffer__consume(rb_);
  return err < 0 ? err : batch_;
}

int EventReader::consume(const RecordFn& on_record) {
  if (!rb_) return -EBADF;
  current_ = &on_record;
  int n = consume_now();
  current_ = nullptr;
  return n;
}

int EventReader::poll(const RecordFn& on_record, int timeout_ms) {
  if (!rb_) return -EBADF;
  current_ = &on_record;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(timeout_ms, 0));
  int total = 0;
  while (true) {
    int n = consume_now();  // always, wakeup or not: NO_WAKEUP records arrive this way
    if (n < 0) {
      total = n;
      break;
    }
    total += n;
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (total > 0 || stopped_.load() || left.count() <= 0) break;
    epoll_event events[2];
    int ready = epoll_wait(epoll_fd_, events, 2,
                           static_cast<int>(std::min<long long>(left.count(), kConsumeIntervalMs)));
    if (ready < 0 && errno != EINTR) {
      total = -errno;
      break;
    }
  }
  current_ = nullptr;
  return total;
}

void EventReader::stop() {
  stopped_.store(true);
  uint64_t one = 1;
  if (stop_fd_ >= 0 && write(stop_fd_, &one, sizeof one) < 0) {
    // The counter can only overflow after 2^64 stops; nothing to do.
  }
}

}  // namespace seam::runtime
