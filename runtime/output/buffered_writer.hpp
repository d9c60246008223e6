#pragma once
// Lines collect in one std::string and go to the fd with write(2) per batch: no stdio locks,
// no per-line syscalls. The owner flushes when the reader goes idle and at exit; a batch that
// grows past the threshold is written early so memory stays bounded.
//
// Every loss is counted: lines a failed write dropped (a full disk, a closed pipe). A regular
// file never keeps part of a line: after a short write followed by an error, the file is cut
// back to the end of the last whole line. A reader that closed the pipe (EPIPE) ends the writer:
// what comes after is dropped and counted, and seam goes on (SIGPIPE is ignored).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace seam::runtime {

class BufferedWriter {
 public:
  // `label` names the output in the stderr notice of a write error ("json:/var/log/seam.jsonl").
  explicit BufferedWriter(int fd, bool owns_fd = false, size_t flush_threshold = size_t{64} * 1024,
                          std::string label = {});
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
  // Writes to `fd` from now on (closing the old one when owned): a reopened file after rotation.
  void replace_fd(int fd);
  const std::string& last_error() const { return last_error_; }
  int fd() const { return fd_; }

  uint64_t lines_dropped() const { return lines_dropped_.load(std::memory_order_relaxed); }
  uint64_t write_errors() const { return write_errors_.load(std::memory_order_relaxed); }
  bool ended() const { return ended_.load(std::memory_order_relaxed); }

 private:
  void failed(size_t kept_bytes, const char* reason);

  int fd_;
  bool owns_fd_;
  size_t flush_threshold_;
  std::string label_;
  std::string buffer_;
  std::string last_error_;
  bool failing_ = false;  // in a streak of errors: one notice per streak
  std::atomic<uint64_t> lines_dropped_{0}, write_errors_{0};
  std::atomic<bool> ended_{false};
};

}  // namespace seam::runtime
