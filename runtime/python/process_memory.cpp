#include "runtime/python/process_memory.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace seam::runtime::python {

bool read_process_memory(pid_t pid, uint64_t address, std::span<uint8_t> out) {
  std::string path = "/proc/" + std::to_string(pid) + "/mem";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = ::pread(fd, out.data(), out.size(), static_cast<off_t>(address));
  ::close(fd);
  return n == static_cast<ssize_t>(out.size());
}

}  // namespace seam::runtime::python
