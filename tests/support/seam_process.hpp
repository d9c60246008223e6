#pragma once
// Runs `seam run ...` in the background for end-to-end tests, with JSON output to a file, and
// waits on what it writes (attach notices, alerts) with deadlines.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace seam::test {

// The alerts (JSON lines) of one process: tests filter by pid, since other processes on the host
// may call the same fixture libraries.
std::vector<nlohmann::json> of_pid(const std::vector<nlohmann::json>& alerts, pid_t pid);

class SeamRun {
 public:
  // Starts `seam run <args...> --output json:<dir>/out.jsonl`; stderr goes to <dir>/stderr.txt.
  SeamRun(const std::string& dir, const std::vector<std::string>& args);
  // The same with seam's stdout on `stdout_fd` (a pipe the test reads, or never reads).
  SeamRun(const std::string& dir, const std::vector<std::string>& args, int stdout_fd);
  pid_t pid() const { return pid_; }
  ~SeamRun();  // SIGTERM, then wait
  SeamRun(const SeamRun&) = delete;
  SeamRun& operator=(const SeamRun&) = delete;

  // Every JSON line written so far.
  std::vector<nlohmann::json> lines() const;
  std::vector<nlohmann::json> alerts(const std::string& rule = {}) const;
  std::vector<nlohmann::json> notices(const std::string& kind) const;
  // Waits until a notice of `kind` whose message contains `text` appears (or seam exits).
  bool wait_for_notice(const std::string& kind, const std::string& text,
                       std::chrono::milliseconds timeout) const;
  bool running() const;
  // Sends `sig` (SIGHUP: reload the rules).
  void signal(int sig) const;
  // SIGTERM and wait; returns the exit code (128+signal when killed).
  int stop();
  std::string stderr_text() const;
  // What seam printed on stdout (alerts, with `--output stdout` among the args).
  std::string stdout_text() const;
  const std::string& output_path() const { return out_; }

 private:
  pid_t pid_ = -1;
  int exit_code_ = -1;
  std::string out_, err_;
};

// A Python with shared libpython and symbols (pyenv 3.11 on this kind of machine), or $SEAM_TEST_PYTHON.
std::string test_python();

// A child process: started now, stdin/stdout pipes so a test can read "ready" and write "go".
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  pid_t pid() const { return pid_; }
  // Reads stdout until a line equal to `line` arrives (or EOF / deadline).
  bool wait_for_line(const std::string& line, std::chrono::milliseconds timeout);
  // The first line that starts with `prefix` (whole: equals it), or nullopt at EOF / deadline.
  std::optional<std::string> line_starting(const std::string& prefix, std::chrono::milliseconds timeout,
                                           bool whole = false);
  void send_line(const std::string& line);
  int wait();  // exit code

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string buffered_;
  int exit_code_ = -1;
};

}  // namespace seam::test
