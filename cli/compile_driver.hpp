#pragma once
// The one compile driver of `seam lint`, `seam compile`, `seam build` and `seam run` (its start
// and every reload). It collects the user's files once (each file once, by real path), reads
// the stdlib once, compiles each file from the text it read and hashes that same text, and hands
// the diagnostics back as values. Every file it reads goes through one check::ReadSource, which
// a test can replace to count the reads.
#include <functional>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cli/compile_rules.hpp"
#include "compiler/build/clang_prestart.hpp"
#include "compiler/build/start_record.hpp"
#include "runtime/run/unit_build.hpp"

namespace seam::cli {

// The clangs seam run's start runs ahead of its program, and the record of the rule files they
// are for (compiler/build/start_record.hpp).
struct EarlyClang {
  std::shared_ptr<build::ClangPrestart> clangs;  // null: none started
  // What the run begins once the first part is built (build::BuildOptions::on_first_part).
  std::function<void()> on_first_part;
  std::optional<build::StartRecord> record;
  bool recorded = false;  // the cache holds `record` as it is: nothing to write after the build
};

// seam run's start, first thing: unless a start of the rule files under `compile.paths` with the
// same stdlib and `settings`, all as they are now, found its object, clang starts now
// (compiler/build/clang_prestart.hpp), so that its own start (loading LLVM) runs beside the kernel
// probes and reading and checking the rules. `settings`: what of the command line reaches the
// generated C (cmd_run.cpp), as text.
EarlyClang start_clang_early(const CompileOptions& compile, const std::string& settings);

struct DriverOptions {
  CompileOptions compile;             // paths: the user's files and directories
  bool allow_insecure_rules = false;  // no rule-file safety check (a test's temp dir)
};

class CompileDriver {
 public:
  explicit CompileDriver(DriverOptions options, check::ReadSource read = {});

  // The user's files, as check_all() collected them: every *.seam under the paths, each once.
  const std::vector<std::string>& files() const { return files_; }
  const DriverOptions& options() const { return options_; }

  // Every user file read and checked together, as `seam lint` sees them (nothing printed).
  check::Program check_all();

  // check_all(), then lowered as one program and generated. The diagnostics and lowering notes
  // are printed to `err`; warnings do not stop it.
  CompiledRules compile_all(std::ostream& err);

  // The program compile_all() checked, lowered and generated again with other lowering options
  // (seam build's second variant): nothing is read or checked again.
  CompiledRules relower(CompiledRules&& rules, const lower::Options& lower, std::ostream& err) const;

  // Rule and stdlib files become kernel programs run as root: false (each refused file named on
  // `err`) when someone other than root could have changed one of the program's files.
  bool sources_are_safe(const check::Program& program, std::ostream& err) const;

  // The name of `seam run`'s one unit: the paths as given ("rules", "a.seam b.seam").
  std::string unit_name() const;

  // seam run's start, after compile_all(): every rule file in one unit (one generated C, one
  // clang run, one object), from the program compile_all() checked (no file is read or checked
  // again). Rules whose probes this kernel lacks (compile.probe_missing) are left out, lowering
  // again only when there are some.
  // `early`: clangs started ahead of the program (start_clang_early()), the build's to take.
  runtime::UnitCompileResult build_unit(CompiledRules& all, std::ostream& err, EarlyClang early = {}) const;

  // A reload: every file under the paths collected, read, checked and built again as one unit
  // (a file added or removed is a change too), with the stdlib as read at start. Safe to call
  // from a worker thread. exit_code: 0, 1 for diagnostics or a build error, 2 for an unsafe file.
  runtime::UnitCompileResult compile_unit(int* exit_code = nullptr) const;

 private:
  std::shared_ptr<const check::StdlibSources> stdlib() const;
  // Reads, checks and (when it checks clean) lowers and generates `paths`. `drop_missing`: rules
  // whose probes this kernel lacks are left out (seam run). Prints what it finds to `err`.
  CompiledRules compile(const std::vector<std::string>& paths, bool drop_missing, std::ostream& err) const;
  runtime::UnitCompileResult unit_result(const std::vector<std::string>& files, CompiledRules& rules,
                                         build::BuildResult& built, std::string printed) const;
  void lower_and_generate(CompiledRules& out, const lower::Input& input, const lower::Options& lower,
                          std::ostream& err) const;

  DriverOptions options_;
  check::ReadSource read_;
  std::vector<std::string> files_;
  mutable std::once_flag stdlib_once_;
  mutable std::shared_ptr<const check::StdlibSources> stdlib_;
};

// A driver for one compile of `options.paths` (seam compile, and tests).
CompiledRules compile_rules(const CompileOptions& options, std::ostream& err);

}  // namespace seam::cli
