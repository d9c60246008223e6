#include "cli/traced_command.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace seam::cli {

// The remover: forked before seam drops its capabilities, it waits for end of file on its pipe
// (seam closed it, or seam is gone) and removes the cgroup. Ctrl-C, a SIGTERM to the process
// group, or seam's SIGHUP must not take it away first. Only async-signal-safe calls after fork.
Result<void> TracedCommand::start_remover() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
  remover_ = ::fork();
  if (remover_ < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return Error{std::string("fork: ") + std::strerror(errno)};
  }
  if (remover_ == 0) {
    // Only its pipe: an inherited BPF or perf fd would keep a program attached for the whole run.
    if (fds[0] > 0) ::close_range(0, static_cast<unsigned>(fds[0]) - 1, 0);
    ::close_range(static_cast<unsigned>(fds[0]) + 1, ~0U, 0);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::sigaction(sig, &ignore, nullptr);
    char c;
    while (::read(fds[0], &c, 1) < 0 && errno == EINTR) {
    }
    ::rmdir(cgroup_.c_str());  // fails while a child of the command lives on: nothing to wait for
    _exit(0);
  }
  ::close(fds[0]);
  remove_fd_ = fds[1];
  return {};
}

Result<void> TracedCommand::start(const std::string& command, const std::string& cgroup_root) {
  if (cgroup_root.empty())
    return Error{"no cgroup v2 hierarchy is mounted (needed to follow the command's children)",
                 ErrorCode::Unsupported};
  cgroup_ = cgroup_root + "/seam-run-" + std::to_string(::getpid());
  if (::mkdir(cgroup_.c_str(), 0755) != 0 && errno != EEXIST)
    return Error{"cannot create the cgroup " + cgroup_ + ": " + std::strerror(errno), code_of_errno(errno)};
  struct stat st {};
  if (::stat(cgroup_.c_str(), &st) != 0)
    return Error{"cannot read the cgroup " + cgroup_ + ": " + std::strerror(errno), code_of_errno(errno)};
  cgroup_id_ = st.st_ino;  // a cgroup v2 id is its directory's inode
  if (Result<void> remover = start_remover(); !remover) {
    ::rmdir(cgroup_.c_str());
    return remover;
  }
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
  std::string procs = cgroup_ + "/cgroup.procs";
  pid_ = ::fork();
  if (pid_ < 0) return Error{std::string("fork: ") + std::strerror(errno)};
  if (pid_ == 0) {
    ::close(pipe_fds[1]);
    int fd = ::open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ::write(fd, "0", 1) != 1) _exit(126);  // "0": the writing process itself
    ::close(fd);
    char c;
    while (::read(pipe_fds[0], &c, 1) < 0 && errno == EINTR) {
    }
    // EOF without a byte: seam gave up before the probes were attached.
    if (c != 'g') _exit(125);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ::close(pipe_fds[0]);
  go_fd_ = pipe_fds[1];
  return {};
}

void TracedCommand::release() {
  if (go_fd_ < 0) return;
  char go = 'g';
  if (::write(go_fd_, &go, 1) != 1) {
  }
  ::close(go_fd_);
  go_fd_ = -1;
}

bool TracedCommand::exited() {
  if (pid_ <= 0) return exit_code_ >= 0;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r != pid_) return false;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  pid_ = -1;
  return true;
}

TracedCommand::~TracedCommand() {
  if (go_fd_ >= 0) ::close(go_fd_);  // a held command exits without running
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (remove_fd_ >= 0) {
    ::close(remove_fd_);  // the remover removes the cgroup; waited for, so it is gone when seam exits
    int status = 0;
    while (::waitpid(remover_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace seam::cli
