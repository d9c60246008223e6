#pragma once
// A reload's decisions, apart from BPF: which rule files to compile again (their text changed,
// or they are new), which running units to remove (their file is gone), and what a failed
// compile leaves running (the previous unit, until the text changes again). The session asks it
// and carries out its answers; the file system is reached only through `HashFiles`, which a
// test replaces.
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
  std::vector<std::string> remove;    // running units whose file is gone
  size_t unchanged = 0;               // running (or known broken) with the same text
  std::vector<std::string> unlisted;  // directories that could not be listed: their files keep running
};

class Reloader {
 public:
  // `not_units`: files under the paths that are modules or only tune others: never units.
  Reloader(std::vector<std::string> rule_paths, std::vector<std::string> not_units, HashFiles hash);

  // `running`: path -> hash of the text each running unit was built from.
  ReloadDecision decide(const std::map<std::string, std::string>& running);

  // A file's text `hash` did not become a unit: it is not compiled again until its text changes.
  // `conflict`: it was refused for a name another running file declares, which a later reload
  // may remove.
  void failed(const std::string& path, const std::string& hash, bool conflict = false);
  // A file's new unit started.
  void started(const std::string& path);
  // After a reload that changed the running set: whether a file refused for a conflict should be
  // tried again (its failure is forgotten).
  bool retry_conflicts();

  const std::map<std::string, std::string>& failed_files() const { return failed_; }

 private:
  std::vector<std::string> rule_paths_;
  std::vector<std::string> not_units_;
  HashFiles hash_;
  std::map<std::string, std::string> failed_;  // path -> hash of the text that failed to build
  std::set<std::string> conflicted_;           // failed for a metric name another file has
};

}  // namespace seam::runtime
