#pragma once
// seam run compiles one rule unit per file, but an `override`, `disable` or `enable` in one file
// may change rules of another (an operator's folder tuning the shipped pack). Such tuning files
// are compiled with every unit, their own rules lowered only in their own unit; a tuning file
// without rules or metrics is no unit at all (like a module file).
#include <string>
#include <vector>

#include "compiler/check/program.hpp"

namespace seam::cli {

struct TuningFiles {
  std::vector<std::string> all;          // every file (of `files`) that tunes rules
  std::vector<std::string> tuning_only;  // those of them that declare no rule or metric
};

TuningFiles tuning_files(const check::Program& program, const std::vector<std::string>& files);

// Whether anything is left to run: a rule or a metric in a rule file (after tuning).
bool has_rules(const check::Program& program);

std::string join_paths(const std::vector<std::string>& paths);

}  // namespace seam::cli
