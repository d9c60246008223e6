#include "runtime/run/start_ahead.hpp"

#include <unistd.h>

#include <bpf/bpf.h>

namespace seam::runtime {

int create_event_ring(uint32_t bytes) {
  return bpf_map_create(BPF_MAP_TYPE_RINGBUF, "seam_events", 0, 0, bytes, nullptr);
}

StartAhead::StartAhead(uint32_t ring_bytes, std::optional<pid_t> only) {
  ring_fd_ = create_event_ring(ring_bytes);
  if (ring_fd_ < 0) return;
  ring_bytes_ = ring_bytes;
  hook_ = LoaderHook::start_async(ring_fd_, only, attach_.get_future().share());
}

StartAhead::~StartAhead() {
  std::call_once(attach_once_, [this] { attach_.set_value(false); });  // a failed build: attach none
  if (hook_.valid()) hook_.get();  // the hook, detached and closed before its ring
  if (ring_fd_ >= 0) close(ring_fd_);
}

void StartAhead::attach_loaders() {
  std::call_once(attach_once_, [this] { attach_.set_value(true); });
}

int StartAhead::take_ring() {
  int fd = ring_fd_;
  ring_fd_ = -1;
  return fd;
}

}  // namespace seam::runtime
