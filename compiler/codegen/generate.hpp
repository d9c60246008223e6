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
  // `seam run --cgroup PATH`: every program tests the scope map first, whatever its file's scope
  // (the operator's selector narrows every file's scope).
  bool operator_scope = false;
  bool exec_notices = true;  // a sched_process_exec program that tells the runtime of new processes
};

struct Generated {
  std::string c_source;
  nlohmann::json layout;  // plan::Plan as JSON plus the generator's version
  // seam's own functions the program calls (prebuilt_bpf.hpp names: a record's reserve and
  // submit, the GIL's holder test, the Python frame walk for a pystack, the stack copy for a
  // ustack), which its build links from seam's prebuilt objects where seam has them.
  std::vector<std::string> prebuilt_calls;
};

// Sites whose programs would be the same C but for their name and attach point (a rule naming
// several syscalls runs the same code at each one's tracepoints) become one program attached at
// each: every attachment of such a group names the first one's program, and the other sites go,
// so the kernel loads and verifies it once and clang builds it once. Attachments in a fallback
// chain and uprobe sessions keep their own programs. The compile driver runs it between lowering
// and generate().
void share_identical_programs(plan::Program& program, const Options& options = {});

// Throws std::logic_error (a bug in seam, never in a rule) when a template is misused or the
// finished text breaks the escaping invariant of c_invariant.hpp.
Generated generate(const plan::Program& program, const Options& options = {});

}  // namespace seam::codegen
