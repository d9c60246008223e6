#include "compiler/build/rename_watch.hpp"

#include <sys/inotify.h>
#include <unistd.h>

#include <cstring>
#include <thread>

namespace seam::build {

RenameWatch::RenameWatch(const std::string& dir) {
  fd_ = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (fd_ >= 0 && inotify_add_watch(fd_, dir.c_str(), IN_MOVED_TO) < 0) {
    close(fd_);
    fd_ = -1;
  }
}

RenameWatch::~RenameWatch() {
  // Closing an inotify fd that had a watch waits for the kernel's fsnotify SRCU grace period
  // (fsnotify_destroy_group): 10-15 ms for a process's first, right on a cold start's path from
  // clang's rename to the load. A thread of its own waits it out instead.
  if (fd_ >= 0) std::thread([fd = fd_] { close(fd); }).detach();
}

std::vector<std::string> RenameWatch::renamed() {
  std::vector<std::string> names;
  if (fd_ < 0) return names;
  alignas(inotify_event) char buf[4096];
  for (ssize_t got; (got = read(fd_, buf, sizeof buf)) > 0;) {
    for (ssize_t at = 0; at < got;) {
      inotify_event e{};
      std::memcpy(&e, buf + at, sizeof e);
      if ((e.mask & IN_MOVED_TO) && e.len > 0) names.emplace_back(buf + at + sizeof e);  // NUL-padded
      at += static_cast<ssize_t>(sizeof e + e.len);
    }
  }
  return names;
}

}  // namespace seam::build
