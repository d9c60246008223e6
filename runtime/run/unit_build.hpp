#pragma once
// `seam run`'s rule files compiled together: one probe plan and one BPF object for them all (one
// program per probe site, however many files probe it), with the hash of each file's text it was
// built from. A reload builds the whole set again and replaces the unit (docs/operations.md).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/diag/diagnostic.hpp"
#include "compiler/plan/plan.hpp"

namespace seam::runtime {

struct UnitBuild {
  std::string path;  // the unit's name: the run's paths ("rules"), or a bundle's file
  std::string hash;  // of every file's text this was built from
  // Each source file (as found under the run's paths) -> build::hash_file of the text built.
  std::map<std::string, std::string> files;
  plan::Plan plan;
  std::vector<uint8_t> object;
  double compile_ms = 0;
};

struct UnitCompileResult {
  std::unique_ptr<UnitBuild> build;          // null on failure
  std::string hash;                          // of the text that was compiled (also on failure)
  std::map<std::string, std::string> files;  // each file -> the hash of its text compiled (also on failure)
  diag::Diagnostics diagnostics;             // the checker's, as values
  std::string printed;  // everything the compile reported, as text: diagnostics, notes, clang
  std::string error;    // one line naming file and line when build is null
};

// Checks, lowers, generates and builds the unit named `path` again (every rule file of the run,
// or a bundle), with the safety check of its sources. Called on a worker thread during reloads:
// it must not touch the session's state.
using UnitCompiler = std::function<UnitCompileResult(const std::string& path)>;

}  // namespace seam::runtime
