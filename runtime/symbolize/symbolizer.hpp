#pragma once
// Addresses from stack records -> function names. For user stacks it keeps a snapshot of each
// process's executable mappings (taken by remember(), ideally when the process is first seen,
// so that a process that exits right after a call still gets names) and one symbol table per
// library, cached by build-id (or by device/inode without one), so each library is read once.
#include <sys/types.h>

#include <cstdint>
#include <deque>
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
//
// Every per-process resource is bounded, since any user can start processes: at most
// `max_processes` snapshots, `max_open_files` descriptors held open for libraries not read yet
// (the least recently opened is closed first, and reopened by path if needed), and
// `max_tables` symbol tables kept beyond those in use. forget_exited() drops processes gone for
// a while.
struct SymbolizerLimits {
  size_t max_processes = 1024;
  size_t max_open_files = 64;
  size_t max_tables = 256;
};

class Symbolizer {
 public:
  // At most `max_processes` snapshots are kept; the least recently used goes first.
  explicit Symbolizer(size_t max_processes = 1024);
  explicit Symbolizer(SymbolizerLimits limits);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // Snapshots /proc/PID/maps and opens each mapped library, so that names resolve after exit.
  // Taken again, it replaces the old snapshot (after a dlopen). False when the process is gone.
  bool remember(pid_t pid);
  void forget(pid_t pid);
  // Forgets processes found gone (kill(pid, 0) fails with ESRCH) at two calls at least
  // `grace_ms` apart, so records still in the ring after an exit get names. Returns them.
  std::vector<pid_t> forget_exited(int64_t now_ms, int64_t grace_ms);
  // Library descriptors held open right now (bounded by max_open_files).
  size_t open_files() const { return open_files_; }
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
    int64_t gone_since_ms = -1;  // first seen gone by forget_exited()
  };

  Process* snapshot(pid_t pid);
  const Mapping* find_mapping(const Process& p, uint64_t addr) const;
  const ModuleSymbols* symbols_of(Module& m);
  Frame frame_for(const Mapping& m, uint64_t addr);
  void evict_if_full();
  void hold_open(const std::shared_ptr<Module>& m);
  void release_fd(Module& m);
  void bound_tables();

  SymbolizerLimits limits_;
  size_t open_files_ = 0;
  std::deque<std::weak_ptr<Module>> open_order_;  // modules holding a descriptor, oldest first
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
