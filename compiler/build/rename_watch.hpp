#pragma once
// The files renamed into a directory, as they appear (inotify IN_MOVED_TO). clang writes its
// object to a temporary file and renames it into place once the object is whole, and only when it
// succeeded: a build that sees the rename need not wait for clang's exit, which tears down its
// address space first (build_object.cpp, StartedProcess::leave_to_exit).
#include <string>
#include <vector>

namespace seam::build {

class RenameWatch {
 public:
  // Watches `dir`; fd() is -1 when inotify cannot (then nothing is ever seen: wait for the exit).
  explicit RenameWatch(const std::string& dir);
  // Returns at once: the fd is closed on a thread of its own, which waits for the kernel.
  ~RenameWatch();
  RenameWatch(const RenameWatch&) = delete;
  RenameWatch& operator=(const RenameWatch&) = delete;

  int fd() const { return fd_; }
  // The names renamed into the directory since the last call (call when fd() is readable).
  std::vector<std::string> renamed();

 private:
  int fd_ = -1;
};

}  // namespace seam::build
