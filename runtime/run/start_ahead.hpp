#pragma once
// What `seam run` sets up while clang still builds its rules: the ring buffer, whose size the
// plan gives before the build, and the dynamic loader's hook (loader_hook.hpp), loaded into that
// ring on a thread of its own. The hook's uprobes on the loaders are registered when the build's
// first part is done (attach_loaders(), from build::BuildOptions::on_first_part), not at once:
// the first uprobe after a quiet spell waits out an RCU grace period (rcu_sync_enter on the
// kernel's dup_mmap_sem, 10-20 ms here), and writers within about a grace period after it do
// not. Registered then, that wait passes beside the rest of the build and the unit's load, and
// the unit's own uprobes follow soon enough not to wait again; registered at once, it would pass
// beside clang and the unit's uprobes would wait a grace period of their own. The session takes
// the ring and the hook over (session.hpp); a run that ends before that closes them here.
#include <sys/types.h>

#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <optional>

#include "compiler/diag/result.hpp"
#include "runtime/run/loader_hook.hpp"

namespace seam::runtime {

// The run's one ring buffer ("seam_events", which every object and the hook share): its fd, or
// -1 with errno set.
int create_event_ring(uint32_t bytes);

class StartAhead {
 public:
  // The ring of `ring_bytes` and the hook loading on it. Never fails: without a ring nothing is
  // held, and the session makes its own and says why. `only`: --pid.
  StartAhead(uint32_t ring_bytes, std::optional<pid_t> only);
  // Waits for the hook's thread, which attaches nothing unless it was let go, and closes what the
  // session did not take.
  ~StartAhead();
  StartAhead(const StartAhead&) = delete;
  StartAhead& operator=(const StartAhead&) = delete;

  // The hook's thread may attach its loaders now (again: nothing). Any thread.
  void attach_loaders();

  // The ring's fd (-1: none) and its size; take_ring() hands the fd over.
  int ring_fd() const { return ring_fd_; }
  uint32_t ring_bytes() const { return ring_bytes_; }
  int take_ring();
  // The hook, loading on the ring and attaching once attach_loaders() was called (not valid():
  // no ring, so none started, or taken already).
  std::future<Result<std::unique_ptr<LoaderHook>>> take_hook() { return std::move(hook_); }

 private:
  int ring_fd_ = -1;
  uint32_t ring_bytes_ = 0;
  std::promise<bool> attach_;  // true: attach; false: the run ended first
  std::once_flag attach_once_;
  std::future<Result<std::unique_ptr<LoaderHook>>> hook_;
};

}  // namespace seam::runtime
