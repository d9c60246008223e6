#pragma once
// The rule folder every subcommand uses when given no path: rules/ next to the binary's install
// tree, else ./rules, else the source tree's pack.
#include <string>

namespace seam::cli {

std::string default_rules_dir();

}  // namespace seam::cli
