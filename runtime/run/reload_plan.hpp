#pragma once
// What a reload has to do, decided from file hashes alone: which rule files are new, changed,
// gone or unchanged. Kept apart from the session so it can be tested without BPF.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace seam::runtime {

// Every `*.seam` under the paths (a file as given, even a missing one; a directory recursively,
// sorted), as check::load collects them. A file reached twice (`rules` and `rules/./a.seam`, a
// symlink) is listed once, under its first spelling: it runs as one unit.
// A directory that could not be listed whole (out of descriptors, say) goes in *unlisted: its
// files are unknown, not gone.
std::vector<std::string> rule_files(const std::vector<std::string>& paths,
                                    std::vector<std::string>* unlisted = nullptr);

// path -> content hash (empty when unreadable) for every rule file under the paths.
std::map<std::string, std::string> hash_rule_files(const std::vector<std::string>& paths,
                                                   std::vector<std::string>* unlisted = nullptr);

// Running files under a directory that could not be listed keep running: they are marked
// unchanged in `on_disk` (with their running hash) rather than removed.
void keep_unlisted(const std::map<std::string, std::string>& running,
                   const std::vector<std::string>& unlisted, std::map<std::string, std::string>& on_disk);

struct ReloadPlan {
  std::vector<std::string> compile;    // new files and files whose text changed
  std::vector<std::string> remove;     // running units whose file is gone
  std::vector<std::string> unchanged;  // running (or known broken) with the same text
};

// `running`: path -> hash of the running units; `failed`: path -> hash of the last text that
// failed to build (not retried until it changes); `on_disk`: hash_rule_files().
ReloadPlan plan_reload(const std::map<std::string, std::string>& running,
                       const std::map<std::string, std::string>& failed,
                       const std::map<std::string, std::string>& on_disk);

// Editors write in bursts (truncate, write, rename, chmod): a reload waits until events have
// been quiet for `quiet_ms`, but never longer than `max_ms` after the first of a burst.
class Debouncer {
 public:
  Debouncer(int64_t quiet_ms, int64_t max_ms) : quiet_ms_(quiet_ms), max_ms_(max_ms) {}
  void event(int64_t now_ms);
  // True once, when a burst has settled (or hit max_ms) at now_ms.
  bool due(int64_t now_ms);
  bool pending() const { return first_ >= 0; }

 private:
  int64_t quiet_ms_, max_ms_;
  int64_t first_ = -1, last_ = -1;
};

}  // namespace seam::runtime
