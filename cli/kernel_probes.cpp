#include "cli/kernel_probes.hpp"

#include <sys/stat.h>

#include "runtime/load/tracefs.hpp"

namespace seam::cli {

std::optional<std::string> missing_on_this_kernel(const ast::ProbeSpec& probe) {
  if (probe.kind != ast::ProbeKind::Tracepoint) return std::nullopt;
  Result<std::string> tracefs = runtime::ensure_tracefs();
  if (!tracefs) return std::nullopt;  // cannot tell: loading reports it
  const std::string& root = *tracefs;
  struct stat st {};
  if (::stat((root + "/events/" + probe.category + "/" + probe.name).c_str(), &st) == 0) return std::nullopt;
  return std::string("this kernel has no such tracepoint");
}

bool has_tracepoint(const std::string& category, const std::string& name) {
  ast::ProbeSpec probe;
  probe.kind = ast::ProbeKind::Tracepoint;
  probe.category = category;
  probe.name = name;
  return !missing_on_this_kernel(probe);
}

}  // namespace seam::cli
