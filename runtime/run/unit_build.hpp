#pragma once
// One rule file compiled for `seam run`: its probe plan and BPF object, with the hash of the file's
// text it was built from. The session runs one rule unit per rule file so that a file can be
// replaced on reload without touching the others.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/diag/diagnostic.hpp"
#include "compiler/plan/plan.hpp"

namespace seam::runtime {

struct UnitBuild {
  std::string path;  // the rule file, as found under the run's paths
  std::string hash;  // build::hash_file of the text this was built from
  plan::Plan plan;
  std::vector<uint8_t> object;
  double compile_ms = 0;
};

struct UnitCompileResult {
  std::unique_ptr<UnitBuild> build;  // null on failure
  std::string hash;                  // of the text that was compiled (also on failure)
  diag::Diagnostics diagnostics;     // the checker's, as values
  std::string printed;               // everything the compile reported, as text: diagnostics, notes, clang
  std::string error;                 // one line naming file and line when build is null
};

// Checks, lowers, generates and builds one rule file (and the safety check of its sources).
// Called on a worker thread during reloads: it must not touch the session's state.
using UnitCompiler = std::function<UnitCompileResult(const std::string& path)>;

}  // namespace seam::runtime
