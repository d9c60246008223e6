#include "runtime/output/buffered_writer.hpp"

#include "runtime/output/sink.hpp"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace seam::runtime {

BufferedWriter::BufferedWriter(int fd, bool owns_fd, size_t flush_threshold, std::string label)
    : fd_(fd), owns_fd_(owns_fd), flush_threshold_(flush_threshold), label_(std::move(label)) {
  buffer_.reserve(flush_threshold + 4096);
}

BufferedWriter::~BufferedWriter() {
  flush();
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
}

void BufferedWriter::replace_fd(int fd) {
  flush();
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
  fd_ = fd;
  owns_fd_ = true;
}

bool BufferedWriter::flush() {
  if (buffer_.empty()) return true;
  if (ended()) {
    lines_dropped_ += static_cast<uint64_t>(std::count(buffer_.begin(), buffer_.end(), '\n'));
    buffer_.clear();
    return false;
  }
  // Where the file ends before this batch, to cut a partial line off again (O_APPEND files).
  struct stat st {};
  bool regular = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  off_t start = regular ? ::lseek(fd_, 0, SEEK_END) : -1;
  size_t done = 0;
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
      int err = n < 0 ? errno : 0;
      if (err == EPIPE) ended_ = true;
      size_t kept = done;
      if (regular && start >= 0) {
        size_t last_newline = std::string_view(buffer_.data(), done).rfind('\n');
        kept = last_newline == std::string_view::npos ? 0 : last_newline + 1;
        if (kept < done && ::ftruncate(fd_, start + static_cast<off_t>(kept)) != 0) kept = done;
      }
      failed(kept, err ? strerror(err) : "write returned 0");
      return false;
    }
  }
  if (failing_ && !label_.empty()) {
    std::string line = "seam: output " + label_ + ": writing again\n";
    [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  }
  failing_ = false;
  buffer_.clear();
  return true;
}

// The lines after the first `kept_bytes` are lost: counted, and told once per streak on stderr
// (the output itself may be what cannot be written).
void BufferedWriter::failed(size_t kept_bytes, const char* reason) {
  uint64_t lost = static_cast<uint64_t>(
      std::count(buffer_.begin() + static_cast<std::ptrdiff_t>(kept_bytes), buffer_.end(), '\n'));
  lines_dropped_ += lost;
  ++write_errors_;
  last_error_ = reason;
  if (!failing_ && !label_.empty()) {
    std::string line =
        "seam: output " + label_ + ": cannot write (" + last_error_ + "); " + std::to_string(lost) +
        " lines dropped" +
        (ended() ? "; the reader is gone, this output ends" : ", and every line until it can") + "\n";
    [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  }
  failing_ = true;
  buffer_.clear();
}

void append_writer_counters(const std::string& output, const BufferedWriter& writer,
                            std::vector<metrics::OutputCounter>& out) {
  out.push_back({output, "dropped", writer.lines_dropped(), false, "write_error"});
  out.push_back({output, "write_errors", writer.write_errors(), false, ""});
}

}  // namespace seam::runtime
