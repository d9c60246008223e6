#include "runtime/discover/rescanner.hpp"

#include "runtime/discover/scan_round.hpp"

namespace seam::runtime::discover {

Rescanner::Rescanner(std::vector<plan::LibraryPattern> patterns, Scope scope)
    : scanner_(std::move(patterns)), scope_(scope) {}

std::vector<LibraryFile> Rescanner::scan() {
  LibrarySet found;
  if (scope_.pid) {
    scanner_.scan_process(*scope_.pid, found);
  } else {
    for (pid_t pid : running_pids()) scanner_.scan_process(pid, found);
  }
  // System files do not come and go with processes: one look is enough, and a library
  // installed later is found through the first process that maps it.
  if (scope_.include_system_paths && !system_scanned_) {
    scanner_.scan_system(found);
    system_scanned_ = true;
  }
  return keep_new(found.take());
}

std::vector<LibraryFile> Rescanner::scan_pid(pid_t pid) {
  if (scope_.pid && *scope_.pid != pid) return {};
  LibrarySet found;
  scanner_.scan_process(pid, found);
  return keep_new(found.take());
}

Rescanner::Loaded Rescanner::scan_loaded(pid_t pid, const std::vector<LoadedName>& names) {
  Loaded loaded;
  if (scope_.pid && *scope_.pid != pid) {
    loaded.done.assign(names.size(), true);
    return loaded;
  }
  LibrarySet found;
  loaded.done = scanner_.scan_loaded(pid, names, found);
  loaded.files = keep_new(found.take());
  return loaded;
}

std::vector<LibraryFile> Rescanner::keep_new(std::vector<LibraryFile> found) {
  std::vector<LibraryFile> fresh;
  for (LibraryFile& f : found) {
    if (reported_.insert({f.dev, f.ino}).second) fresh.push_back(std::move(f));
  }
  return fresh;
}

}  // namespace seam::runtime::discover
