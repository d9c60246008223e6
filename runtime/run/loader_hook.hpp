#pragma once
// The dynamic loader's hook: one small BPF program of seam's own (bpf-templates/
// loader_notice.c.tmpl) on glibc's _dl_debug_state in every ld.so file discovery finds (the
// host's, and each container's through /proc/PID/root). When a process has mapped its
// libraries, at start or by dlopen, it sends the names seam has not marked seen, into the
// shared ring, waking the reader at once. A process that maps a library in a folder seam has
// never looked at is known before it runs its own code, so the library's probes are attached
// while it, or the next process to map it, is still running: the first may be missed, the rest
// are traced (uprobes are per file, not per process).
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/diag/result.hpp"
#include "runtime/discover/library_file.hpp"
#include "runtime/run/library_hub.hpp"

struct bpf_object;
struct bpf_link;

namespace seam::runtime {

class LoaderHook {
 public:
  // Builds the program (clang, through the object cache: a hit after the first run) and loads
  // it writing into `ring_fd`. An error names what is missing; the caller carries on without.
  // `only`: --pid, the one process its uprobes run for (LibraryHub::only_pid() of the hub it
  // follows); nullopt: every process.
  static Result<std::unique_ptr<LoaderHook>> start(int ring_fd, std::optional<pid_t> only = std::nullopt);
  // start() and then, once `attach` is ready and true (at once when it is not valid),
  // attach_start_loaders(), on a thread of their own: what `seam run` waits for when it begins
  // following libraries (session.cpp, start_ahead.hpp). False: the run ended before, attach none.
  static std::future<Result<std::unique_ptr<LoaderHook>>> start_async(int ring_fd, std::optional<pid_t> only,
                                                                      std::shared_future<bool> attach = {});
  // Builds the program into the object cache (nothing when it is there): `seam run` calls it on a
  // thread beside building the rules, so that a cold start's second clang run is off the path to
  // `ready` and start() finds the object built.
  static void build_ahead();
  ~LoaderHook();
  LoaderHook(const LoaderHook&) = delete;
  LoaderHook& operator=(const LoaderHook&) = delete;

  // Follows the loader files `libraries` finds (now and later), reporting one that cannot be
  // hooked through `warn`, and forgets what it marked seen when new patterns come.
  void follow(LibraryHub& libraries, std::function<void(const std::string&)> warn);
  // A loader notice from the ring: its names go to the library hub, and those it dealt with
  // are marked seen. Returns the process, nullopt for bytes that are not a loader notice.
  std::optional<pid_t> on_record(std::span<const uint8_t> bytes);

  // Attaches to the dynamic loader seam itself runs with (found in its own maps) and, unless the
  // hook runs for one process, to the system's loader files (the library hub's first scan finds
  // them too), before follow() finds the others; each file is attached once. `seam run` calls it
  // on the thread that loads the hook: the first uprobe registered after a quiet spell waits out
  // an RCU grace period (start_ahead.hpp), which then passes beside the end of the build and the
  // rules' load instead of before their uprobes. False: all were attached before.
  Result<bool> attach_start_loaders();
  // Attaches to one dynamic loader file. An error for a loader without _dl_debug_state and
  // _r_debug (musl's) or one the kernel refuses; each file is tried once.
  Result<bool> attach(const discover::LibraryFile& loader);
  size_t attached() const { return links_.size(); }

  // The runtime has acted on `name` for processes of `cgroup`: the kernel stops sending it. When
  // the map of marks is full it is emptied first (every name is new again).
  void mark_seen(uint64_t cgroup, std::string_view name);
  // How many marks the map holds at most (its max_entries).
  uint32_t seen_capacity() const;
  // Every name is new again (the rules' library patterns changed: names passed over before may
  // matter now).
  void forget_seen();
  // Records not sent: the ring had no room, or a process or the host was past its budget
  // (bpf-templates/loader_notice.c.tmpl).
  uint64_t lost() const;
  // A line for a notice when more were lost since the last call; nullopt otherwise.
  std::optional<std::string> newly_lost();

 private:
  LoaderHook() = default;
  LibraryHub* libraries_ = nullptr;
  int subscription_ = 0;
  bpf_object* obj_ = nullptr;
  int prog_fd_ = -1;
  int seen_fd_ = -1;
  int lost_fd_ = -1;
  uint64_t reported_lost_ = 0;
  std::optional<pid_t> only_;  // start()'s `only`
  std::set<std::pair<dev_t, ino_t>> tried_;
  std::vector<bpf_link*> links_;
};

}  // namespace seam::runtime
