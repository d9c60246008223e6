#pragma once
// Lines collect in one std::string and go to the fd with write(2) per batch: no stdio locks,
// no per-line syscalls. The owner flushes when the reader goes idle and at exit; a batch that
// grows past the threshold is written early so memory stays bounded.
#include <cstddef>
#include <string>

namespace seam::runtime {

class BufferedWriter {
 public:
  explicit BufferedWriter(int fd, bool owns_fd = false, size_t flush_threshold = 64 * 1024);
  ~BufferedWriter();  // flushes; closes the fd when owned
  BufferedWriter(const BufferedWriter&) = delete;
  BufferedWriter& operator=(const BufferedWriter&) = delete;

  // Append a whole line here, then call line_done().
  std::string& buffer() { return buffer_; }
  void line_done() {
    if (buffer_.size() >= flush_threshold_) flush();
  }

  // Writes everything buffered (retrying short writes and EINTR). On an error the batch is
  // dropped (a closed pipe must not grow memory forever) and the reason kept in last_error().
  bool flush();
  const std::string& last_error() const { return last_error_; }
  int fd() const { return fd_; }

 private:
  int fd_;
  bool owns_fd_;
  size_t flush_threshold_;
  std::string buffer_;
  std::string last_error_;
};

}  // namespace seam::runtime
