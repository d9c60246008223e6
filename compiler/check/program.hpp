#pragma once
// One run of the compiler front end: every source file read, its AST, and the diagnostics so far.
// load() reads and parses; check() (check.hpp) resolves names and types in place.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ast/ast.hpp"
#include "compiler/diag/diagnostic.hpp"
#include "compiler/parse/parser.hpp"
#include "compiler/source/source_file.hpp"

namespace seam::check {

struct LoadOptions {
  std::vector<std::string> stdlib_dirs;
  parse::Limits limits;
};

// `--disable NAME`, `--enable tag:T`: the command line's word on which rules run (tuning.hpp).
struct RuleToggle {
  bool enable = false;
  bool by_tag = false;
  std::string name;
};

// A rule as tuning left it, for `seam lint` and `seam run --dry-run`: where it is declared, what
// changed it, and its effective clauses as text.
struct TunedRule {
  std::string rule;
  std::string declared_at;  // "rules/syscalls.seam:7"
  bool disabled = false;
  std::string disabled_by;            // "local/tune.seam:3", "--disable tag:noisy"
  std::vector<std::string> clauses;   // "where duration > 5ms and ...", "except comm == \"batchjob\""
  std::vector<std::string> tuned_by;  // the overrides that touched it
};

// Rule files are those given by the user; modules are the stdlib files (each declares `module
// NAME` first). A user file that declares a module counts as a module, and hides a stdlib module
// of the same name. SourceFiles live behind unique_ptr so AST ranges into them stay valid.
struct Program {
  std::vector<std::unique_ptr<SourceFile>> sources;
  std::vector<ast::File> modules;
  std::vector<ast::File> rule_files;
  diag::Diagnostics diagnostics;
  std::vector<RuleToggle> toggles;         // set by the caller before check()
  std::vector<TunedRule> tuned;            // filled by check(): every rule an override or toggle touched
  std::vector<std::string> trimmed_files;  // files tuning took rules from: no W0003 for their `use`
  const ast::File* find_module(std::string_view name) const;
};

// Collects `*.seam` under each path (files as given, directories recursively, sorted), reads them
// (size checked with stat before reading: E0002 over limits.max_file_bytes; unreadable, missing
// or not a regular file: E0004 with the OS reason), parses all, and loads every stdlib file found
// in options.stdlib_dirs (a file reached twice is read once).
Program load(const std::vector<std::string>& paths, const LoadOptions& options);

// $SEAM_STDLIB if set, else <exe dir>/../stdlib if it exists, else <exe dir>/../share/seam/stdlib
// if it exists, else the source tree's stdlib/.
std::vector<std::string> default_stdlib_dirs();

}  // namespace seam::check
