#pragma once
// The seam_scope map every scoped rule file's programs look the current process up in first
// (bpf-templates/seam_scope.h): tgid -> the scope bits it holds. One bit per distinct selector
// of the running files (workload, a cgroup subtree, a comm pattern) and one for the operator's
// `--cgroup`; a scope's mask is its selector's bit and the operator's, all required.
//
// User space adds processes: those that map a workload library (found at exec and by the
// periodic rescan, so a late dlopen enters too), those whose v2 cgroup is in a selector's
// subtree, those whose name matches a comm pattern. The kernel copies a parent's bits to its
// children at fork and deletes a thread's key when it exits; the rescan also drops the keys of
// processes gone without an exit seen. Membership stays until exit.
//
// Beside it, seam_scope_any holds one byte per tgid (pid_max of them), set while the tgid is a
// key: the programs test it first, an inlined array lookup. The byte holds the key's bits
// themselves while they are among the first seven (scope_byte_of), so the programs look the hash
// up only for a process holding a later bit. This side writes the bytes through mmap (a byte
// store, as the kernel's fork and exit programs do); where the array cannot be mapped it has one
// entry with every byte 1 ("look in the hash"), so every process is looked up there as before.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/plan/plan.hpp"

namespace seam::runtime {

// seam_scope_any's flag for a byte that holds its key's bits (SEAM_SCOPE_EXACT in seam_scope.h).
inline constexpr uint8_t kScopeExact = 0x80;
uint8_t scope_byte_of(uint64_t bits);

class ScopeKeeper {
 public:
  static constexpr uint32_t kMaxProcesses = 16384;  // seam_scope's max_entries (seam_scope.h)

  // operator_cgroup: `--cgroup PATH` (empty: none). Creates the map; error() says why not.
  explicit ScopeKeeper(const std::string& operator_cgroup = {});
  ~ScopeKeeper();
  ScopeKeeper(const ScopeKeeper&) = delete;
  ScopeKeeper& operator=(const ScopeKeeper&) = delete;

  int fd() const { return fd_; }
  int any_fd() const { return any_fd_; }  // seam_scope_any (-1: none)
  const std::string& error() const { return error_; }

  // The bits each scope slot of a unit of this plan needs (registering its selectors): one per
  // plan.scopes entry, then the host-wide rules' (the --cgroup bit, or 0: they test nothing).
  std::vector<uint64_t> masks_for(const plan::Plan& plan);

  // Every process now (and the keys of processes gone), or one that has just exec'd. Returns
  // the processes that entered the scope, as "pid N (comm)".
  std::vector<std::string> scan();
  std::vector<std::string> scan_pid(pid_t pid);
  // Cgroup selectors whose directory has gone since the last call (each reported once).
  std::vector<std::string> vanished_cgroups();

  size_t size() const;

 private:
  struct Selector {
    plan::ScopeKind kind = plan::ScopeKind::Host;
    std::string argument;  // cgroup: the path relative to the v2 mount; comm: the pattern
    uint64_t bit = 0;
    bool gone = false;  // cgroup: reported as vanished
  };
  uint64_t bit_of(plan::ScopeKind kind, const std::string& argument);
  uint64_t bits_of(pid_t pid) const;
  bool maps_workload_library(pid_t pid) const;
  std::optional<std::string> add(pid_t pid);
  void create_any_map();
  void mark(uint32_t tgid, uint64_t bits);

  int fd_ = -1;
  int any_fd_ = -1;
  uint8_t* any_bytes_ = nullptr;  // seam_scope_any mapped: byte tgid, for tgid < any_size_
  size_t any_size_ = 0;
  size_t any_mapped_ = 0;
  std::string error_;
  std::vector<Selector> selectors_;
  std::vector<std::string> workload_globs_;
  uint64_t operator_bit_ = 0;
};

}  // namespace seam::runtime
