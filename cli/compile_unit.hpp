#pragma once
// One rule file through the whole compiler for `seam run`'s rule units: check (with its stdlib
// modules), the rule-file safety check, lower, generate, build. Used at start and, on a worker
// thread, for every reload; it prints nothing: the diagnostics come back as text.
#include <string>
#include <vector>

#include "cli/compile_rules.hpp"
#include "runtime/run/unit_build.hpp"

namespace seam::cli {

struct UnitOptions {
  CompileOptions compile;  // paths are ignored: the unit's file is compiled alone
  bool allow_insecure_rules = false;
  // Files among the user's paths that declare a module: compiled with every unit that uses them,
  // never units of their own.
  std::vector<std::string> module_files;
  // Files that tune rules (tuning_files.hpp): loaded with every unit as overlays.
  std::vector<std::string> tuning_files;
};

// exit_code (if given): 0, 1 for diagnostics or a build error, 2 for an unsafe file.
runtime::UnitCompileResult compile_unit(const std::string& path, const UnitOptions& options,
                                        int* exit_code = nullptr);

}  // namespace seam::cli
