#pragma once
// Runs the clang binary in a child process (a crashing or hanging compiler cannot take seam
// down) and turns its "file:line:col: error: message" lines into values.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seam::build {

struct ClangError {
  std::string file;  // as clang names it: with #line directives, the rule file
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;
  bool operator==(const ClangError&) const = default;
};

// $SEAM_CLANG, else clang, else clang-14..clang-16 on PATH; empty when none is found.
std::string find_clang();

// Identifies the compiler binary for cache keys without running it: resolved path, size, mtime.
std::string clang_identity(const std::string& clang_path);

struct ProcessResult {
  int exit_code = -1;  // 128 + signal when it died of one; -1 when it could not start
  bool timed_out = false;
  std::string output;  // stdout and stderr together
};

// Resource limits the child gets (setrlimit before exec); 0: inherited.
struct ProcessLimits {
  uint64_t address_space_bytes = 0;  // RLIMIT_AS: allocations past it fail in the child
  uint64_t cpu_seconds = 0;          // RLIMIT_CPU: the kernel kills the child past it (SIGXCPU/SIGKILL)
};

ProcessResult run_process(const std::vector<std::string>& argv, int timeout_ms,
                          const ProcessLimits& limits = {});

// A child started now that waits for its standard input: a build starts clang before the kernel
// types its program includes are dumped, so that clang's process start (loading and relocating
// libLLVM and libclang-cpp: 100 ms of CPU in a VM) runs beside the dump instead of after it.
class StartedProcess {
 public:
  StartedProcess(const std::vector<std::string>& argv, const ProcessLimits& limits);
  ~StartedProcess();  // a child that was not finished is killed and reaped
  StartedProcess(const StartedProcess&) = delete;
  StartedProcess& operator=(const StartedProcess&) = delete;
  // Writes `input` (at most PIPE_BUF bytes: one write that cannot block) to the child's standard
  // input and closes it; a second call writes nothing. Children started together are each sent
  // their input before the first is waited for, so that they run at once.
  void send(std::string_view input);
  // send(input), then collects the child's output until it exits or `timeout_ms` passes.
  ProcessResult finish(std::string_view input, int timeout_ms);

  // The steps of finish, for a caller that waits on several children at once:
  // - the pipe of the child's output, -1 once it ended;
  int output_fd() const { return out_; }
  // - one read of what the child wrote (call when output_fd() is readable); false at its end;
  bool read_output();
  // - after the end of its output: waits for the child and gives its output and exit status;
  ProcessResult reap();
  // - or, for a child whose work is known to be done (clang renames its object into place only
  //   when it succeeded): what it wrote so far, with exit status 0, and the child left to exit
  //   on its own. A clang's exit tears down its address space (4-5 ms here) after its object is
  //   written; a thread of its own waits for that, off the build's path.
  ProcessResult leave_to_exit();

 private:
  void close_output();  // the pipe of the child's output, if still open

  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string output_;
};

// The errors (and fatal errors) in clang's diagnostics output, in order.
std::vector<ClangError> parse_clang_errors(const std::string& output);

// argv as one shell-safe line, for logs and for re-running by hand.
std::string shell_quote(const std::vector<std::string>& argv);

}  // namespace seam::build
