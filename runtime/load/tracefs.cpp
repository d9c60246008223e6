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

Result<std::string> ensure_tracefs() {
  static const std::string kRoot = "/sys/kernel/tracing";
  static const std::string kDebugfsRoot = "/sys/kernel/debug/tracing";
  if (has_events(kRoot)) return kRoot;
  if (has_events(kDebugfsRoot)) return kDebugfsRoot;
  if (mount("tracefs", kRoot.c_str(), "tracefs", 0, nullptr) == 0 || errno == EBUSY) {
    if (has_events(kRoot)) return kRoot;
  }
  return Error{"cannot mount tracefs on " + kRoot + ": " + std::strerror(errno)};
}

}  // namespace seam::runtime
