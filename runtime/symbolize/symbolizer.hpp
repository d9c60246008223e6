#pragma once
// Addresses from stack records -> function names. For user stacks it keeps a snapshot of each
// process's executable mappings (taken by remember(), ideally when the process is first seen,
// so that a process that exits right after a call still gets names) and one symbol table per
// library, cached by build-id (or by device/inode without one), so each library is read once.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/symbolize/frame.hpp"
#include "runtime/symbolize/kernel_symbols.hpp"
#include "runtime/symbolize/module_symbols.hpp"

namespace seam::runtime::symbolize {

// Not thread-safe: one thread (the runtime's output path) owns it. Call remember() again when
// a process execs: its old snapshot describes the image it replaced.
class Symbolizer {
 public:
  // At most `max_processes` snapshots are kept; the least recently used goes first.
  explicit Symbolizer(size_t max_processes = 4096);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // Snapshots /proc/PID/maps and opens each mapped library, so that names resolve after exit.
  // Taken again, it replaces the old snapshot (after a dlopen). False when the process is gone.
  bool remember(pid_t pid);
  void forget(pid_t pid);
  bool remembers(pid_t pid) const { return processes_.count(pid) != 0; }
  size_t remembered() const { return processes_.size(); }

  // One frame per address, in order. Without a snapshot, one is taken now; an address that no
  // mapping covers makes it re-read the maps once (a library loaded since).
  std::vector<Frame> symbolize(pid_t pid, std::span<const uint64_t> addrs);
  // Kernel stacks, through /proc/kallsyms (read on first use).
  std::vector<Frame> symbolize_kernel(std::span<const uint64_t> addrs);

  // Distinct library symbol tables read so far (a library under two inodes with one build-id
  // counts once): for stats and tests.
  size_t tables_loaded() const { return tables_loaded_; }

 private:
  struct Module;
  struct Mapping {
    uint64_t start = 0, end = 0, offset = 0;
    std::shared_ptr<Module> module;
  };
  struct Process {
    std::vector<Mapping> mappings;  // sorted by start
    uint64_t last_use = 0;
  };

  Process* snapshot(pid_t pid);
  const Mapping* find_mapping(const Process& p, uint64_t addr) const;
  const ModuleSymbols* symbols_of(Module& m);
  Frame frame_for(const Mapping& m, uint64_t addr);
  void evict_if_full();

  size_t max_processes_;
  uint64_t clock_ = 0;
  std::unordered_map<pid_t, Process> processes_;
  std::map<std::pair<dev_t, ino_t>, std::weak_ptr<Module>> modules_;  // shared by processes
  std::map<std::pair<dev_t, ino_t>, std::shared_ptr<const ModuleSymbols>> tables_by_inode_;
  std::unordered_map<std::string, std::shared_ptr<const ModuleSymbols>> tables_by_build_id_;
  size_t tables_loaded_ = 0;
  std::optional<KernelSymbols> kernel_;
  std::string maps_buf_;
};

}  // namespace seam::runtime::symbolize
