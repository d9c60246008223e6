#include "runtime/output/buffered_writer.hpp"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

namespace seam::runtime {

BufferedWriter::BufferedWriter(int fd, bool owns_fd, size_t flush_threshold)
    : fd_(fd), owns_fd_(owns_fd), flush_threshold_(flush_threshold) {
  buffer_.reserve(flush_threshold + 4096);
}

BufferedWriter::~BufferedWriter() {
  flush();
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

bool BufferedWriter::flush() {
  size_t done = 0;
  bool ok = true;
  while (done < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd_, POLLOUT, 0};  // a non-blocking stdout: wait until it drains
      ::poll(&p, 1, 1000);
    } else {
      last_error_ = n < 0 ? strerror(errno) : "write returned 0";
      ok = false;
      break;
    }
  }
  buffer_.clear();
  return ok;
}

}  // namespace seam::runtime
