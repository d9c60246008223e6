#pragma once
// Where the default rule pack is when no path is given (`seam run`, `seam build`).
#include <string>

namespace seam::cli {

// rules/ next to the binary's install tree (../rules, ../share/seam/rules), else in the current
// directory, else the source tree's.
std::string default_rules_dir();

}  // namespace seam::cli
