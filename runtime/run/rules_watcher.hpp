#pragma once
// Watches the rule paths with inotify and says when a reload is due: any change to a `*.seam`
// file or to a path given as a file (a bundle) (written, renamed over, created, deleted) or to a folder below
// a watched directory, debounced so that an editor's burst of writes makes one reload. Non-blocking; the
// session calls poll() from its loop.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/run/reload_plan.hpp"

namespace seam::runtime {

class RulesWatcher {
 public:
  // Watches each directory (and the folders below it) and the folder of each file path.
  explicit RulesWatcher(std::vector<std::string> paths, int64_t quiet_ms = 200, int64_t max_ms = 2000);
  ~RulesWatcher();
  RulesWatcher(const RulesWatcher&) = delete;
  RulesWatcher& operator=(const RulesWatcher&) = delete;

  bool ok() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }
  // Reads pending events; true when a settled burst of changes calls for a reload.
  bool poll(int64_t now_ms);

 private:
  void add_watches();
  void add(const std::string& dir);

  std::vector<std::string> paths_;
  int fd_ = -1;
  std::map<int, std::string> dirs_;  // watch descriptor -> folder
  std::set<std::string> files_;      // names of the paths given as files (a bundle need not end in .seam)
  Debouncer debounce_;
  std::string error_;
};

}  // namespace seam::runtime
