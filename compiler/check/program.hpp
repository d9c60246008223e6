#pragma once
// One run of the compiler front end: every source file read, its AST, and the diagnostics so far.
// load() reads and parses; check() (check.hpp) resolves names and types in place.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ast/ast.hpp"
#include "compiler/diag/diagnostic.hpp"
#include "compiler/parse/parser.hpp"
#include "compiler/source/source_file.hpp"

namespace seam::check {

// Reads one file's text, or adds to `diags` why it cannot (E0002, E0004). The default reads the
// disk (read_file); the compile driver passes its own so that a test can count every read.
using ReadSource =
    std::function<std::optional<std::string>(const std::string& path, diag::Diagnostics& diags)>;

// The stdlib as read once (the compile driver reads it once per start, and every compile of that
// run parses these texts rather than reading the directories again).
struct StdlibSources {
  struct File {
    std::shared_ptr<const SourceFile> source;
    std::string identity;  // the file's real path: a user file reached twice is read once
  };
  std::vector<File> files;
  diag::Diagnostics diagnostics;  // stdlib files that could not be read
};

struct LoadOptions {
  std::vector<std::string> stdlib_dirs;  // read when `stdlib` is null
  std::shared_ptr<const StdlibSources> stdlib;
  parse::Limits limits;
  ReadSource read;  // null: read_file
  // Rule files shown by another name than their path (SourceFile::shown): `seam run -e` and `-`
  // write their text to a private directory of a new name at every run.
  std::map<std::string, std::string> shown_names;
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
// of the same name. SourceFiles live behind shared_ptr so AST ranges into them stay valid.
struct Program {
  std::vector<std::shared_ptr<const SourceFile>> sources;
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
// in options.stdlib_dirs, or those of options.stdlib as already read (a file reached twice is
// read once).
Program load(const std::vector<std::string>& paths, const LoadOptions& options);

// Every *.seam under the directories (sorted, each file once) read with `read`.
StdlibSources read_stdlib(const std::vector<std::string>& dirs, const ReadSource& read);

// Reads a file from disk, its size checked with stat first (E0002 over limits.max_file_bytes;
// E0004 with the OS reason when it is unreadable, missing or not a regular file).
std::optional<std::string> read_file(const std::string& path, const parse::Limits& limits,
                                     diag::Diagnostics& diags);

// $SEAM_STDLIB if set, else <exe dir>/../stdlib if it exists, else <exe dir>/../share/seam/stdlib
// if it exists, else the source tree's stdlib/.
std::vector<std::string> default_stdlib_dirs();

}  // namespace seam::check
