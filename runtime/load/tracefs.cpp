#include "runtime/load/tracefs.hpp"

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace seam::runtime {

namespace {
bool has_events(const std::string& root) {
  return access((root + "/events").c_str(), F_OK) == 0;
}
}  // namespace

std::string ensure_tracefs(std::string* error) {
  static const char* kRoot = "/sys/kernel/tracing";
  if (has_events(kRoot)) return kRoot;
  if (has_events("/sys/kernel/debug/tracing")) return "/sys/kernel/debug/tracing";
  if (mount("tracefs", kRoot, "tracefs", 0, nullptr) == 0 || errno == EBUSY) {
    if (has_events(kRoot)) return kRoot;
  }
  if (error) *error = std::string("cannot mount tracefs on ") + kRoot + ": " + std::strerror(errno);
  return {};
}

}  // namespace seam::runtime
