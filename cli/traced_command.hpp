#pragma once
// `seam run -c CMD`: the command is started before the rules compile (so that its pid is known)
// but held before exec until every probe is attached, in a cgroup of its own (cgroup v2), so that
// the rules see it and every child it starts, and nothing else. The run ends when it exits.
// Removing that cgroup at the end needs CAP_DAC_OVERRIDE (the v2 root is mode 555), which seam
// drops once its probes are attached, so a helper forked with the cgroup, still holding it,
// removes the cgroup once seam closes its pipe (at the end of the run, or when seam dies) and the
// command's last process has gone: seam stopped by a signal stops the shell, not what it started.
#include <sys/types.h>

#include <string>

#include "compiler/diag/result.hpp"

namespace seam::cli {

class TracedCommand {
 public:
  TracedCommand() = default;
  TracedCommand(const TracedCommand&) = delete;
  TracedCommand& operator=(const TracedCommand&) = delete;
  ~TracedCommand();  // kills a command still held or running, removes the cgroup

  // Forks `sh -c CMD` into a new cgroup under `cgroup_root`, or says why it cannot.
  Result<void> start(const std::string& command, const std::string& cgroup_root);
  uint64_t cgroup_id() const { return cgroup_id_; }
  pid_t pid() const { return pid_; }
  // Lets the command exec (once the probes are attached).
  void release();
  // True once it has exited (reaped); its exit status is then in exit_code().
  bool exited();
  int exit_code() const { return exit_code_; }

 private:
  Result<void> start_remover();

  pid_t pid_ = -1;
  int go_fd_ = -1;  // closing it lets the child exec
  pid_t remover_ = -1;
  int remove_fd_ = -1;  // closing it tells the remover to remove the cgroup
  std::string cgroup_;
  uint64_t cgroup_id_ = 0;
  int exit_code_ = -1;
};

}  // namespace seam::cli
