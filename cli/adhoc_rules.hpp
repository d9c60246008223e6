#pragma once
// `seam run -e 'RULE'` and `seam run -`: rule text from the command line or standard input,
// written to a private directory (mode 0700, removed at exit) so that the run's rule units, the
// reload watcher and the rule-file safety check see an ordinary file. A one-liner needs no `use`:
// the modules that declare the events, aliases and states its words name are used for it.
#include <map>
#include <string>
#include <vector>

#include "compiler/diag/result.hpp"

namespace seam::cli {

class AdhocRules {
 public:
  AdhocRules() = default;
  AdhocRules(const AdhocRules&) = delete;
  AdhocRules& operator=(const AdhocRules&) = delete;
  ~AdhocRules();

  // Writes `text` as NAME.seam (with a `use` line added when it has none); the path, or an error.
  // The file is shown as <NAME> (shown_names).
  Result<std::string> add(const std::string& name, std::string text,
                          const std::vector<std::string>& stdlib_dirs);

  // Each file's path -> the name diagnostics, alerts and the generated C give it (<command-line-1>,
  // <stdin>): the directory is new at every run, the name is not, so that the same text builds the
  // same C and a later run finds its object in the cache (check::LoadOptions::shown_names).
  const std::map<std::string, std::string>& shown_names() const { return shown_; }

 private:
  std::string dir_;
  std::vector<std::string> files_;
  std::map<std::string, std::string> shown_;
};

// The modules (of the stdlib in `stdlib_dirs`) that declare a name the text uses, as a plain word
// (`cudaStreamSynchronize`, `gil_held`) or as the first part of a dotted one (`cuda.malloc`).
std::vector<std::string> modules_named_by(const std::string& text,
                                          const std::vector<std::string>& stdlib_dirs);

}  // namespace seam::cli
