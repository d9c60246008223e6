#pragma once
// What `seam run` asks of the checked rule files before building them: whether anything is left
// to run, and the paths as one line for messages. (Files that only tune other files' rules need
// nothing of their own: every file of a run is built into one object.)
#include <string>
#include <vector>

#include "compiler/check/program.hpp"

namespace seam::cli {

// Whether anything is left to run: a rule or a metric in a rule file (after tuning).
bool has_rules(const check::Program& program);

std::string join_paths(const std::vector<std::string>& paths);

}  // namespace seam::cli
