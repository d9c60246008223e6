#pragma once
// Library discovery shared by every rule unit: one Rescanner per distinct set of library
// patterns however many rule files use it, so N files on libcudart cost one /proc scan, not N.
// A unit that starts later (reload) is handed every file found so far when it subscribes.
#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/discover/library_file.hpp"
#include "runtime/discover/library_scanner.hpp"
#include "runtime/discover/rescanner.hpp"

namespace seam::runtime {

// The dynamic loaders' file names: glibc's ld-linux-x86-64.so.2 (ld-2.31.so before 2.34), and
// musl's ld-musl-x86_64.so.1, which the hook refuses by name of what it lacks.
const std::vector<plan::LibraryPattern>& loader_patterns();

class LibraryHub {
 public:
  using Deliver = std::function<void(const discover::LibraryFile&)>;
  explicit LibraryHub(std::optional<pid_t> pid) : pid_(pid) {}

  // Calls `deliver` for every file of `patterns` found so far (scanning now the first time these
  // patterns are asked for) and for every new one later. Returns an id for unsubscribe().
  int subscribe(const std::vector<plan::LibraryPattern>& patterns, Deliver deliver);
  void unsubscribe(int id);

  // Per process, not per file: calls `deliver` for every process in scope that maps files of
  // `patterns` (now, and for each new one later), and again, with what it maps then (maybe
  // nothing), for a process that has just exec'd. unsubscribe() takes the id too.
  using DeliverProcess = std::function<void(pid_t, const std::vector<discover::LibraryFile>&)>;
  int watch_processes(const std::vector<plan::LibraryPattern>& patterns, DeliverProcess deliver);

  // The dynamic loader files (ld-*.so*) of every process in scope, for the loader hook
  // (loader_hook.hpp); their processes are not counted in processes().
  int subscribe_loaders(Deliver deliver);
  // Called when a set of patterns is asked for the first time (a reload's new rule file): names
  // the loader hook passed over before may matter now.
  void on_patterns_added(std::function<void()> fn) { patterns_added_ = std::move(fn); }

  // Every process in scope, or one new process.
  void scan();
  void scan_pid(pid_t pid);
  // What the dynamic loader says `pid` has just loaded (loader_record.hpp): each subscriber
  // gets the new files, each process watch the process if one of its files is among them.
  // Returns, per name, whether the loader hook may stop sending it (LibraryScanner::scan_loaded).
  std::vector<bool> loaded(pid_t pid, const std::vector<discover::LoadedName>& names);
  // --pid: the one process discovery looks at (nullopt: every process).
  std::optional<pid_t> only_pid() const { return pid_; }
  // Processes seen mapping a library file of some rule that are still alive.
  size_t processes() const;

 private:
  struct Entry {
    std::unique_ptr<discover::Rescanner> rescanner;
    std::vector<discover::LibraryFile> found;
    std::map<int, Deliver> subscribers;
    bool counted = true;  // its processes count in processes() (not the loaders')
  };
  void deliver(Entry& e, std::vector<discover::LibraryFile> files);
  struct ProcessWatch {
    std::unique_ptr<discover::LibraryScanner> scanner;
    DeliverProcess deliver;
    std::set<pid_t> delivered;  // processes already handed over (until they exec)
  };
  // `pid`: its files to the watch unless delivered before; `fresh`: it has just exec'd.
  void scan_watched(ProcessWatch& w, pid_t pid, bool fresh);
  std::map<int, ProcessWatch> watches_;

  std::optional<pid_t> pid_;
  std::map<std::string, Entry> entries_;  // by patterns
  std::map<int, std::string> keys_;       // subscription id -> entry
  std::function<void()> patterns_added_;
  int next_id_ = 1;
};

}  // namespace seam::runtime
