#pragma once
// tracefs is where tracepoint ids and formats live. A fresh machine may not have it mounted:
// seam mounts it (as root) the first time it needs it.
#include <string>

namespace seam::runtime {

// Returns the tracefs root ("/sys/kernel/tracing" or the debugfs one), mounting it if needed;
// on failure returns an empty string and puts the reason in *error.
std::string ensure_tracefs(std::string* error);

}  // namespace seam::runtime
