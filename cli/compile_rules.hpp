#pragma once
// The compiler front to back for `seam compile` and `seam run`: load and check rule files
// (with their stdlib modules), lower them to a probe plan, generate BPF C and its layout.
// Building the object (clang) is a separate step: build_rules().
#include <iosfwd>
#include <string>
#include <vector>

#include "compiler/build/build_object.hpp"
#include "compiler/check/availability.hpp"
#include "compiler/check/program.hpp"
#include "compiler/codegen/generate.hpp"
#include "compiler/lower/lower.hpp"

namespace CLI {
class App;
}

namespace seam::cli {

struct CompileOptions {
  std::vector<std::string> paths;
  std::vector<std::string> extra_stdlib_dirs;
  codegen::Options codegen;
  lower::Options lower;
  // One file of several (a rule unit of `seam run`): a route may name an output another file
  // declares, so E0107 is left to the check of all files together.
  bool outputs_elsewhere = false;
  // --disable/--enable (compiler/check/tuning.hpp).
  std::vector<check::RuleToggle> toggles;
  // Files loaded and checked for their overrides, whose own rules and metrics are not lowered
  // (they belong to another unit); with them, an override naming a rule of a third file is
  // left to the check of all files together (E0114).
  std::vector<std::string> overlay_paths;
  // A rule unit of `seam run`: why this kernel cannot attach a probe (a tracepoint it lacks). The
  // rules and metrics that need one are left out and listed in the plan; the file's others run.
  check::ProbeAvailability probe_missing;
};

// `--ustack-copy KIB` (seam run, seam compile): the user stack bytes each `ustack` record copies
// for unwinding with call-frame information; 0 keeps frame pointers only (docs/language.md).
void add_ustack_copy_option(CLI::App& app, lower::Options& lower);

struct CompiledRules {
  check::Program program;
  plan::Program lowered;
  codegen::Generated generated;
  bool ok = false;             // false: diagnostics were printed to `err`
  std::string internal_error;  // the line printed when lowering or codegen met a bug in seam
};

// "rules/x.seam:7:3: error: ..." as build_rules() prints a clang error.
std::string clang_error_line(const build::ClangError& e);

// Prints diagnostics (text form) and lowering limits to `err`. Warnings do not stop it.
CompiledRules compile_rules(const CompileOptions& options, std::ostream& err);

// Builds the generated C with clang (cached). Errors are printed to `err` and ok is false.
build::BuildResult build_rules(const CompiledRules& rules, std::ostream& err);

}  // namespace seam::cli
