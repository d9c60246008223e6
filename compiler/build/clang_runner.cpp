#include "compiler/build/clang_runner.hpp"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <thread>

namespace seam::build {

namespace {

std::string on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : std::string();
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace

std::string find_clang() {
  if (const char* env = std::getenv("SEAM_CLANG"); env && *env) return on_path(env);
  for (const char* name : {"clang", "clang-14", "clang-15", "clang-16"})
    if (std::string found = on_path(name); !found.empty()) return found;
  return {};
}

std::string clang_identity(const std::string& clang_path) {
  std::error_code ec;
  std::filesystem::path real = std::filesystem::canonical(clang_path, ec);
  struct stat st {};
  if (ec || stat(real.c_str(), &st) != 0) return clang_path;
  return real.string() + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

StartedProcess::StartedProcess(const std::vector<std::string>& argv, const ProcessLimits& limits) {
  int in[2], out[2];
  if (argv.empty() || pipe2(in, O_CLOEXEC) != 0) return;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return;
  }
  // Built before fork: the child of a threaded process must not allocate.
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(out[1], 2);
    if (limits.address_space_bytes) {
      rlimit as{limits.address_space_bytes, limits.address_space_bytes};
      if (setrlimit(RLIMIT_AS, &as) != 0) _exit(126);
    }
    if (limits.cpu_seconds) {  // soft limit: SIGXCPU; one second later the hard one: SIGKILL
      rlimit cpu{limits.cpu_seconds, limits.cpu_seconds + 1};
      if (setrlimit(RLIMIT_CPU, &cpu) != 0) _exit(126);
    }
    execv(args[0], args.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  if (pid_ < 0) {
    close(in[1]);
    close(out[0]);
    return;
  }
  in_ = in[1];
  out_ = out[0];
}

namespace {

// Waits for the child `pid` to end; its wait status.
int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

StartedProcess::~StartedProcess() {
  if (in_ >= 0) close(in_);
  close_output();
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    wait_for(pid_);
  }
}

void StartedProcess::close_output() {
  if (out_ >= 0) close(out_);
  out_ = -1;
}

namespace {

// One write to a pipe whose reader may be gone: EPIPE, not a SIGPIPE that would end seam (not
// every command ignores the signal). The signal is blocked for this thread and a pending one
// taken back.
void write_without_sigpipe(int fd, std::string_view bytes) {
  sigset_t pipe_only, old;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  if (write(fd, bytes.data(), bytes.size()) < 0 && errno == EPIPE) {
    timespec zero{};
    sigtimedwait(&pipe_only, nullptr, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace

void StartedProcess::send(std::string_view input) {
  if (in_ < 0) return;
  if (!input.empty()) write_without_sigpipe(in_, input.substr(0, PIPE_BUF));
  close(in_);
  in_ = -1;
}

bool StartedProcess::read_output() {
  if (out_ < 0) return false;
  char buf[8192];
  ssize_t got = read(out_, buf, sizeof buf);
  if (got > 0) {
    output_.append(buf, static_cast<size_t>(got));
    return true;
  }
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  close_output();  // EOF: the child closed its output (exited)
  return false;
}

ProcessResult StartedProcess::reap() {
  ProcessResult r;
  if (pid_ <= 0) return r;
  close_output();
  const int status = wait_for(pid_);
  pid_ = -1;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.output = std::move(output_);
  return r;
}

ProcessResult StartedProcess::leave_to_exit() {
  ProcessResult r;
  if (pid_ <= 0) return r;
  for (pollfd p{out_, POLLIN, 0}; out_ >= 0 && poll(&p, 1, 0) > 0;)
    if (!read_output()) break;
  close_output();
  std::thread([pid = pid_] { wait_for(pid); }).detach();
  pid_ = -1;
  r.exit_code = 0;
  r.output = std::move(output_);
  return r;
}

ProcessResult StartedProcess::finish(std::string_view input, int timeout_ms) {
  if (pid_ <= 0) return {};
  send(input);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool timed_out = false;
  while (out_ >= 0) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      kill(pid_, SIGKILL);
      break;
    }
    pollfd p{out_, POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(left.count()));
    if (n > 0) read_output();
  }
  ProcessResult r = reap();
  r.timed_out = timed_out;
  return r;
}

ProcessResult run_process(const std::vector<std::string>& argv, int timeout_ms, const ProcessLimits& limits) {
  return StartedProcess(argv, limits).finish({}, timeout_ms);
}

std::vector<ClangError> parse_clang_errors(const std::string& output) {
  static const std::regex kLine(R"(^(.+?):(\d+):(\d+): (?:fatal )?error: (.*)$)");
  std::vector<ClangError> errors;
  std::stringstream lines(output);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (!std::regex_match(line, m, kLine)) continue;
    errors.push_back({m[1].str(), static_cast<uint32_t>(std::stoul(m[2].str())),
                      static_cast<uint32_t>(std::stoul(m[3].str())), m[4].str()});
  }
  return errors;
}

std::string shell_quote(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& a : argv) {
    if (!line.empty()) line += ' ';
    bool plain =
        !a.empty() &&
        a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:+,@") ==
            std::string::npos;
    if (plain) {
      line += a;
      continue;
    }
    line += '\'';
    for (char c : a) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

}  // namespace seam::build
