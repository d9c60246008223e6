#pragma once
// Unwinds a user stack copied by the BPF program (the top of the stack and the registers),
// with the call-frame information of the process's binaries (.eh_frame, .debug_frame), through
// elfutils' libdwfl, as `perf --call-graph dwarf` does. Stack memory is read from the copy;
// other addresses from the mapped ELF files. Each process's mappings are remembered when it
// is first seen, so that a process that has exited still unwinds (host paths then).
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/unwind/elf_cache.hpp"
#include "runtime/unwind/registers.hpp"

namespace seam::runtime::unwind {

// Not thread-safe: one thread (the runtime's output path) owns it.
class DwarfUnwinder {
 public:
  // At most `max_processes` are kept (least recently used first out); stacks stop after
  // `max_frames` frames.
  explicit DwarfUnwinder(size_t max_processes = 1024, size_t max_frames = 64);
  ~DwarfUnwinder();
  DwarfUnwinder(const DwarfUnwinder&) = delete;
  DwarfUnwinder& operator=(const DwarfUnwinder&) = delete;

  // Snapshots /proc/PID/maps (again after a dlopen or an exec). False when the process is gone.
  bool remember(pid_t pid);
  // The same from a maps text (tests; a recorded process).
  void remember_maps(pid_t pid, std::string maps);
  void forget(pid_t pid);

  // nullopt when nothing is known of the process (its maps could not be read).
  std::optional<Unwound> unwind(pid_t pid, pid_t tid, const StackSnapshot& snapshot);

  // Whether `addr` lies in an executable mapping of the process (remembered maps).
  bool is_code(pid_t pid, uint64_t addr);

  size_t elf_files() const { return elves_.files(); }

  struct Process;  // a remembered process: its maps and its Dwfl (dwarf_unwinder.cpp)

 private:
  Process* process(pid_t pid);
  void evict_if_full();

  size_t max_processes_, max_frames_;
  uint64_t clock_ = 0;
  std::unordered_map<pid_t, std::unique_ptr<Process>> processes_;
  ElfCache elves_;
  std::string maps_buf_;
};

}  // namespace seam::runtime::unwind
