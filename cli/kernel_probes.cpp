#include "cli/kernel_probes.hpp"

#include <sys/stat.h>

#include "runtime/load/tracefs.hpp"

namespace seam::cli {

std::optional<std::string> missing_on_this_kernel(const ast::ProbeSpec& probe) {
  if (probe.kind != ast::ProbeKind::Tracepoint) return std::nullopt;
  std::string error;
  std::string root = runtime::ensure_tracefs(&error);
  if (root.empty()) return std::nullopt;  // cannot tell: loading reports it
  struct stat st {};
  if (::stat((root + "/events/" + probe.category + "/" + probe.name).c_str(), &st) == 0) return std::nullopt;
  return std::string("this kernel has no such tracepoint");
}

}  // namespace seam::cli
