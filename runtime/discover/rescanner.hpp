#pragma once
// Incremental discovery: the runtime calls scan() on every exec event and every ~500 ms, and
// scan_pid() for a process it has just seen start; each returns only the files (inodes) not
// reported before, so each gets its uprobes attached once.
#include <sys/types.h>

#include <set>
#include <utility>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/discover/library_file.hpp"
#include "runtime/discover/library_scanner.hpp"

namespace seam::runtime::discover {

class Rescanner {
 public:
  Rescanner(std::vector<plan::LibraryPattern> patterns, Scope scope);

  // Every process in scope (and, on the first call, the system paths when the scope asks).
  std::vector<LibraryFile> scan();
  // One process; outside a scope limited to another pid, nothing.
  std::vector<LibraryFile> scan_pid(pid_t pid);
  // What the dynamic loader says `pid` has just loaded (LibraryScanner::scan_loaded): the new
  // files, and per name whether the loader may stop sending it.
  struct Loaded {
    std::vector<LibraryFile> files;
    std::vector<bool> done;
  };
  Loaded scan_loaded(pid_t pid, const std::vector<LoadedName>& names);
  bool wants(std::string_view loaded_name) const { return scanner_.wants(loaded_name); }

  size_t reported_count() const { return reported_.size(); }

 private:
  std::vector<LibraryFile> keep_new(std::vector<LibraryFile> found);

  LibraryScanner scanner_;
  Scope scope_;
  bool system_scanned_ = false;
  std::set<std::pair<dev_t, ino_t>> reported_;
};

}  // namespace seam::runtime::discover
