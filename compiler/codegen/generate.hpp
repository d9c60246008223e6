#pragma once
// Code generation: a lowered plan::Program becomes one BPF C source (from the fragments in
// bpf-templates/) and a layout document the runtime decodes records with.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/plan/sites.hpp"

namespace seam::codegen {

inline constexpr const char* kGeneratedFile = "seam.bpf.c";

struct Options {
  uint32_t target_pid = 0;     // --pid: only this process (0: all)
  uint64_t target_cgroup = 0;  // only this cgroup id, exactly (0: all); `seam run --cgroup` scopes instead
  // `seam run --cgroup PATH`: every program tests the scope map first, whatever its file's scope
  // (the operator's selector narrows every file's scope).
  bool operator_scope = false;
  bool exec_notices = true;  // a sched_process_exec program that tells the runtime of new processes
};

struct Generated {
  std::string c_source;
  nlohmann::json layout;  // plan::Plan as JSON plus the generator's version
};

// Throws std::logic_error (a bug in seam, never in a rule) when a template is misused or the
// finished text breaks the escaping invariant of c_invariant.hpp.
Generated generate(const plan::Program& program, const Options& options = {});

}  // namespace seam::codegen
