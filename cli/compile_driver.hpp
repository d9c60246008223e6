#pragma once
// The one compile driver of `seam lint`, `seam compile`, `seam build` and `seam run` (its start
// and every reload). It collects the user's files once (each file once, by real path), reads
// the stdlib once, compiles each file from the text it read and hashes that same text, and hands
// the diagnostics back as values. Every file it reads goes through one check::ReadSource, which
// a test can replace to count the reads.
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cli/compile_rules.hpp"
#include "runtime/run/unit_build.hpp"

namespace seam::cli {

struct DriverOptions {
  CompileOptions compile;             // paths: the user's files and directories
  bool allow_insecure_rules = false;  // no rule-file safety check (a test's temp dir)
  // seam run's rule units: user files that declare a module, and files that tune other files'
  // rules, are compiled with every unit (split_units() finds them at start).
  std::vector<std::string> module_files;
  std::vector<std::string> tuning_files;
};

// What seam run's start found among the user's files.
struct UnitFiles {
  std::vector<std::string> units;      // a rule unit each
  std::vector<std::string> not_units;  // module files and files that only tune: a reload skips them
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

  // seam run's start, after compile_all(): which files are units; the module and tuning files
  // are kept for every later compile_unit().
  UnitFiles split_units(const check::Program& program);

  // seam run's start: one unit per file of `units`, each lowered alone from the program
  // compile_all() checked (no file is read or checked again), then generated and built with
  // clang in parallel. Rules whose probes this kernel lacks (compile.probe_missing) are left out.
  std::vector<runtime::UnitCompileResult> build_units(CompiledRules& all,
                                                      const std::vector<std::string>& units) const;

  // A reload: one rule file read again and compiled alone, with the module and tuning files and
  // the stdlib as read at start. Safe to call from a worker thread. exit_code: 0, 1 for
  // diagnostics or a build error, 2 for an unsafe file.
  runtime::UnitCompileResult compile_unit(const std::string& path, int* exit_code = nullptr) const;

 private:
  std::shared_ptr<const check::StdlibSources> stdlib() const;
  // Reads, checks and (when it checks clean) lowers and generates `paths`; the rules of the
  // `overlays` are checked but not lowered. Prints what it finds to `err`.
  CompiledRules compile(const std::vector<std::string>& paths, const std::vector<std::string>& overlays,
                        bool unit, std::ostream& err) const;
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

// A driver for one rule unit of `path` (tests).
runtime::UnitCompileResult compile_unit(const std::string& path, const DriverOptions& options,
                                        int* exit_code = nullptr);

}  // namespace seam::cli
