#include "runtime/run/scope_keeper.hpp"

#include <fnmatch.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "compiler/plan/cgroup_path.hpp"
#include "runtime/discover/scan_round.hpp"
#include "runtime/elf/proc_maps.hpp"
#include "runtime/elf/proc_maps_round.hpp"

namespace seam::runtime {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string comm_of(pid_t pid) {
  std::string c = read_text("/proc/" + std::to_string(pid) + "/comm");
  while (!c.empty() && c.back() == '\n') c.pop_back();
  return c;
}

// The process's v2 cgroup ("0::/a/b" in /proc/PID/cgroup), or nullopt.
std::optional<std::string> v2_cgroup_of(pid_t pid) {
  std::istringstream in(read_text("/proc/" + std::to_string(pid) + "/cgroup"));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  return std::nullopt;
}

bool in_subtree(const std::string& cgroup, const std::string& root) {
  if (root == "/") return true;
  return cgroup == root ||
         (cgroup.size() > root.size() && cgroup.rfind(root, 0) == 0 && cgroup[root.size()] == '/');
}

}  // namespace

ScopeKeeper::ScopeKeeper(const std::string& operator_cgroup) {
  fd_ = bpf_map_create(BPF_MAP_TYPE_HASH, "seam_scope", sizeof(uint32_t), sizeof(uint64_t), kMaxProcesses,
                       nullptr);
  if (fd_ < 0) error_ = std::string("cannot create the scope map: ") + std::strerror(errno);
  if (fd_ >= 0) create_any_map();
  if (fd_ >= 0 && any_fd_ < 0) {  // the objects' own one-entry arrays would turn tgids 0-7 away
    error_ = std::string("cannot create the scope map seam_scope_any: ") + std::strerror(errno);
    close(fd_);
    fd_ = -1;
  }
  if (!operator_cgroup.empty()) operator_bit_ = bit_of(plan::ScopeKind::Cgroup, operator_cgroup);
}

ScopeKeeper::~ScopeKeeper() {
  if (any_bytes_) munmap(any_bytes_, any_mapped_);
  if (any_fd_ >= 0) close(any_fd_);
  if (fd_ >= 0) close(fd_);
}

// seam_scope_any: pid_max bytes as entries of 8, written through mmap.
void ScopeKeeper::create_any_map() {
  long pid_max = std::strtol(read_text("/proc/sys/kernel/pid_max").c_str(), nullptr, 10);
  if (pid_max <= 0) pid_max = 4194304;  // the kernel's PID_MAX_LIMIT on 64-bit hosts
  auto entries = static_cast<uint32_t>((pid_max + 7) / 8);
  LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
  any_fd_ = bpf_map_create(BPF_MAP_TYPE_ARRAY, "seam_scope_any", sizeof(uint32_t), sizeof(uint64_t), entries,
                           &opts);
  if (any_fd_ >= 0) {
    any_size_ = static_cast<size_t>(entries) * sizeof(uint64_t);
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    any_mapped_ = (any_size_ + page - 1) / page * page;
    void* at = mmap(nullptr, any_mapped_, PROT_READ | PROT_WRITE, MAP_SHARED, any_fd_, 0);
    if (at != MAP_FAILED) {
      any_bytes_ = static_cast<uint8_t*>(at);
      return;
    }
    close(any_fd_);
    any_size_ = any_mapped_ = 0;
  }
  // No mappable array (a kernel before 5.5): one entry with every byte set, so tgids 0-7 go to the
  // hash and every other tgid, past the end, does too. A byte written through
  // bpf_map_update_elem would rewrite its 7 neighbours, racing with the kernel's fork and exit.
  any_fd_ =
      bpf_map_create(BPF_MAP_TYPE_ARRAY, "seam_scope_any", sizeof(uint32_t), sizeof(uint64_t), 1, nullptr);
  uint32_t first = 0;
  uint64_t all = 0x0101010101010101ULL;
  if (any_fd_ >= 0 && bpf_map_update_elem(any_fd_, &first, &all, BPF_ANY) != 0) {
    close(any_fd_);
    any_fd_ = -1;
  }
}

// The byte of a key holding `bits` (seam_scope.h, seam_scope_byte_of): 0 for none, the bits with
// kScopeExact when all are among the first seven, else 1 ("look in the hash").
uint8_t scope_byte_of(uint64_t bits) {
  if (!bits) return 0;
  return bits < kScopeExact ? static_cast<uint8_t>(kScopeExact | bits) : 1;
}

// Set after the key is added, cleared before it is deleted: a set byte always finds its key.
void ScopeKeeper::mark(uint32_t tgid, uint64_t bits) {
  if (any_bytes_ && tgid < any_size_)
    std::atomic_ref<uint8_t>(any_bytes_[tgid]).store(scope_byte_of(bits), std::memory_order_release);
}

uint64_t ScopeKeeper::bit_of(plan::ScopeKind kind, const std::string& argument) {
  std::string arg = kind == plan::ScopeKind::Cgroup ? plan::cgroup_v2_relative(argument) : argument;
  for (const Selector& s : selectors_)
    if (s.kind == kind && s.argument == arg) return s.bit;
  if (selectors_.size() >= 64) return 0;  // more distinct scopes than bits: the file runs host-wide
  Selector s{kind, arg, uint64_t{1} << selectors_.size(), false};
  selectors_.push_back(s);
  return s.bit;
}

std::vector<uint64_t> ScopeKeeper::masks_for(const plan::Plan& plan) {
  for (const std::string& g : plan.workload_libraries)
    if (std::find(workload_globs_.begin(), workload_globs_.end(), g) == workload_globs_.end())
      workload_globs_.push_back(g);
  std::vector<uint64_t> masks;
  for (const plan::Scope& s : plan.scopes) masks.push_back(operator_bit_ | bit_of(s.kind, s.argument));
  masks.push_back(operator_bit_);
  return masks;
}

bool ScopeKeeper::maps_workload_library(pid_t pid) const {
  if (workload_globs_.empty()) return false;
  std::string storage;
  std::optional<std::string_view> maps = elf::executable_maps_text(pid, storage);  // once a round
  if (!maps) return false;
  bool found = false;
  elf::for_each_executable_mapping(*maps, [&](const elf::MapsEntry& m) {
    size_t slash = m.path.rfind('/');
    if (found || slash == std::string_view::npos) return;
    std::string base(m.path.substr(slash + 1));
    for (const std::string& g : workload_globs_)
      if (fnmatch(g.c_str(), base.c_str(), 0) == 0) found = true;
  });
  return found;
}

uint64_t ScopeKeeper::bits_of(pid_t pid) const {
  uint64_t bits = 0;
  std::optional<std::string> cgroup;
  std::string comm;
  bool cgroup_read = false, comm_read = false;
  for (const Selector& s : selectors_) {
    switch (s.kind) {
      case plan::ScopeKind::Workload:
        if (maps_workload_library(pid)) bits |= s.bit;
        break;
      case plan::ScopeKind::Cgroup:
        if (!cgroup_read) cgroup = v2_cgroup_of(pid), cgroup_read = true;
        if (cgroup && !s.argument.empty() && in_subtree(*cgroup, s.argument)) bits |= s.bit;
        break;
      case plan::ScopeKind::Comm:
        if (!comm_read) comm = comm_of(pid), comm_read = true;
        if (!comm.empty() && fnmatch(s.argument.c_str(), comm.c_str(), 0) == 0) bits |= s.bit;
        break;
      case plan::ScopeKind::Host:
        break;
    }
  }
  return bits;
}

// Adds the bits the process has now to those it holds (never removes: a child keeps the bits
// it inherited at fork). Returns "pid N (comm)" when it had none before.
std::optional<std::string> ScopeKeeper::add(pid_t pid) {
  if (fd_ < 0 || pid == getpid()) return std::nullopt;
  uint64_t bits = bits_of(pid);
  if (!bits) return std::nullopt;
  uint32_t key = static_cast<uint32_t>(pid);
  uint64_t held = 0;
  bool had = bpf_map_lookup_elem(fd_, &key, &held) == 0;
  if (had && (held | bits) == held) {
    mark(key, held);  // set again at every rescan: one store, and a byte a race left clear is mended
    return std::nullopt;
  }
  uint64_t value = held | bits;
  if (bpf_map_update_elem(fd_, &key, &value, BPF_ANY) != 0) return std::nullopt;  // full: E2BIG
  mark(key, value);
  if (had) return std::nullopt;
  return "pid " + std::to_string(pid) + " (" + comm_of(pid) + ")";
}

std::vector<std::string> ScopeKeeper::scan() {
  std::vector<std::string> entered;
  if (fd_ < 0 || selectors_.empty()) return entered;
  // Keys of processes (and threads) gone without an exit seen: pids are reused.
  std::vector<uint32_t> gone;
  uint32_t key = 0, next = 0;
  for (void* at = nullptr; bpf_map_get_next_key(fd_, at, &next) == 0; at = &key) {
    key = next;
    if (access(("/proc/" + std::to_string(key)).c_str(), F_OK) != 0) gone.push_back(key);
  }
  for (uint32_t k : gone) {
    mark(k, 0);
    bpf_map_delete_elem(fd_, &k);
  }
  for (pid_t pid : discover::running_pids())
    if (auto e = add(pid)) entered.push_back(*e);
  return entered;
}

std::vector<std::string> ScopeKeeper::scan_pid(pid_t pid) {
  std::vector<std::string> entered;
  if (selectors_.empty()) return entered;
  if (auto e = add(pid)) entered.push_back(*e);
  return entered;
}

std::vector<std::string> ScopeKeeper::vanished_cgroups() {
  std::vector<std::string> out;
  for (Selector& s : selectors_) {
    if (s.kind != plan::ScopeKind::Cgroup || s.gone) continue;
    std::string dir = plan::cgroup_v2_root() + (s.argument == "/" ? "" : s.argument);
    struct stat st {};
    if (s.argument.empty() || stat(dir.c_str(), &st) != 0) {
      s.gone = true;
      out.push_back(s.argument.empty() ? std::string("(not under the cgroup v2 mount)") : s.argument);
    }
  }
  return out;
}

size_t ScopeKeeper::size() const {
  size_t n = 0;
  uint32_t key = 0, next = 0;
  for (void* at = nullptr; fd_ >= 0 && bpf_map_get_next_key(fd_, at, &next) == 0; at = &key) {
    key = next;
    ++n;
  }
  return n;
}

}  // namespace seam::runtime
