#pragma once
// A reload's decisions, apart from BPF: whether the rule files changed since the running unit
// was built (a file's text changed, a file is new, a file is gone), and what a failed build
// leaves running (the running unit, until a file changes again). Every rule file of a run is in
// one unit (one object), so any change rebuilds the whole set; the per-file answers say what
// changed, for the notice. The session asks it and carries out its answers; the file system is
// reached only through `HashFiles`, which a test replaces.
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace seam::runtime {

// path -> content hash ("" when unreadable) of every rule file under the paths; directories that
// could not be listed whole go in *unlisted (reload_plan.hpp's hash_rule_files).
using HashFiles = std::function<std::map<std::string, std::string>(const std::vector<std::string>& paths,
                                                                   std::vector<std::string>* unlisted)>;

struct ReloadDecision {
  std::vector<std::string> compile;   // new files and files whose text changed
  std::vector<std::string> remove;    // files of the running unit that are gone
  size_t unchanged = 0;               // running (or known broken) with the same text
  std::vector<std::string> unlisted;  // directories that could not be listed: their files keep running
  size_t files = 0;                   // rule files on disk (0: every file is gone)
  bool changed() const { return !compile.empty() || !remove.empty(); }
};

class Reloader {
 public:
  Reloader(std::vector<std::string> rule_paths, HashFiles hash);

  // `running`: path -> hash of the text the running unit was built from, for each of its files.
  ReloadDecision decide(const std::map<std::string, std::string>& running);

  // The changes of `decision` did not become a unit (a check, build or load failure): they are
  // not tried again until a file changes again (an edit put back as it runs is no change).
  void failed(const ReloadDecision& decision, const std::map<std::string, std::string>& on_disk);
  // The set was built and runs: no failure is remembered.
  void started();

  // path -> hash of a text that failed ("" for a removal that failed).
  const std::map<std::string, std::string>& failed_files() const { return failed_; }
  // The hashes decide() last read, for failed().
  const std::map<std::string, std::string>& on_disk() const { return on_disk_; }

 private:
  std::vector<std::string> rule_paths_;
  HashFiles hash_;
  std::map<std::string, std::string> failed_;  // path -> hash of the text that failed to build
  std::set<std::string> failed_removals_;      // gone files whose removal failed to build
  std::map<std::string, std::string> on_disk_;
};

}  // namespace seam::runtime
