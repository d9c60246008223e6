#pragma once
// tracefs is where tracepoint ids and formats live. A fresh machine may not have it mounted:
// seam mounts it (as root) the first time it needs it.
#include <string>

#include "compiler/diag/result.hpp"

namespace seam::runtime {

// The tracefs root ("/sys/kernel/tracing" or the debugfs one), mounted if needed, or why not.
Result<std::string> ensure_tracefs();

}  // namespace seam::runtime
