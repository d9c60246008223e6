#include "cli/traced_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace seam::cli {

namespace {

// Whether the cgroup whose cgroup.events is open on `fd` still holds a process, in it or below.
bool populated(int fd) {
  char text[256];
  ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return false;  // gone, or unreadable: nothing left to wait for
  text[n] = 0;
  return std::strstr(text, "populated 1") != nullptr;
}

// Removes `cgroup` once its last process has gone: a child of the command that outlived it (the
// shell's child, when seam stopped the shell) keeps it busy. The kernel marks cgroup.events
// modified when `populated` changes, which poll reports as POLLPRI. Async-signal-safe calls only.
[[noreturn]] void remove_when_empty(const char* cgroup, const char* events) {
  if (::rmdir(cgroup) == 0 || errno != EBUSY) _exit(0);
  // Busy: a process of the command lives on. Wait for it in a grandchild, so that seam, which
  // waits for its remover, ends now.
  if (::fork() != 0) _exit(0);
  int fd = ::open(events, O_RDONLY | O_CLOEXEC);
  if (fd < 0) _exit(0);
  while (populated(fd)) {
    pollfd p{fd, POLLPRI, 0};
    if (::poll(&p, 1, -1) < 0 && errno != EINTR) _exit(0);
  }
  ::rmdir(cgroup);
  _exit(0);
}

}  // namespace

// The remover: forked before seam drops its capabilities, it waits for end of file on its pipe
// (seam closed it, or seam is gone) and removes the cgroup, at once or once the last process of
// the command has gone (remove_when_empty). Ctrl-C, a SIGTERM to the process group, or seam's
// SIGHUP must not take it away first. Only async-signal-safe calls after fork.
Result<void> TracedCommand::start_remover() {
  std::string events = cgroup_ + "/cgroup.events";
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
    remove_when_empty(cgroup_.c_str(), events.c_str());
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
    // The remover removes the cgroup, waited for: it is gone when seam exits, unless a process of
    // the command outlives seam (then the remover's child removes it once that process is gone).
    ::close(remove_fd_);
    int status = 0;
    while (::waitpid(remover_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

}  // namespace seam::cli
