#pragma once
// What the compile driver (compile_driver.hpp) takes and gives: the options of a compile, and the
// rule files checked, lowered to a probe plan and generated as BPF C with its layout. Building
// the object (clang) is a separate step: build_rules().
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
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
  // Rule files shown by another name than their path: `seam run -e` and `-` text (adhoc_rules.hpp).
  std::map<std::string, std::string> shown_names;
  std::vector<std::string> extra_stdlib_dirs;
  codegen::Options codegen;
  lower::Options lower;
  // --disable/--enable (compiler/check/tuning.hpp).
  std::vector<check::RuleToggle> toggles;
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

// The options every rule build starts from, and the clangs started ahead with them: told which of
// seam's prebuilt functions this seam has (compiler/codegen/prebuilt_bpf.hpp).
build::BuildOptions rule_build_options();

// Builds the generated C with clang (cached). Errors are printed to `err` and ok is false.
// `portable`: for a bundle, which runs on other kernels: its kernel struct reads stay CO-RE
// relocated (-DSEAM_PORTABLE, bpf-templates/seam_prelude.h); otherwise none is.
// `prestarted`: clangs started ahead of the program (compiler/build/clang_prestart.hpp);
// `on_first_part`: BuildOptions::on_first_part.
build::BuildResult build_rules(const CompiledRules& rules, std::ostream& err, bool portable = false,
                               std::shared_ptr<build::ClangPrestart> prestarted = nullptr,
                               std::function<void()> on_first_part = {});

}  // namespace seam::cli
