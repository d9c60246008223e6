#pragma once
// Helpers shared by tests: run a command and capture its output, wait for a condition with a
// deadline (never sleep-and-hope), temporary directories, and the CI rule on privileges.
#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace seam::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs argv (no shell) with optional stdin text; waits for it to exit.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& stdin_text = {});

// Polls `condition` every 10 ms until it is true or `timeout` passes; returns its last value.
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout);

// A fresh directory under /tmp, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Writes `text` to path()/name (creating parent folders) and returns the full path.
  std::string write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

std::string read_file(const std::string& path);

// A script in `dir` that runs `clang` with its arguments after appending them, one line a start,
// to `log`: for $SEAM_CLANG, to count and read the clangs seam starts.
std::string write_logging_clang(const TempDir& dir, const std::string& clang, const std::string& log);

// A pack's rule files (the source tree's PACK_DIR/*.seam: rules/ is the default pack,
// rules-opt-in/ the rules an operator adds to it), sorted.
std::vector<std::string> pack_rule_files(const std::string& pack_dir = "rules");

// True when the tests run as root. Under CI=true, BPF tests must not skip for lack of it:
// use SEAM_REQUIRE_ROOT() at the top of such a test.
bool is_root();
bool in_ci();

}  // namespace seam::test

#define SEAM_REQUIRE_ROOT()                                                            \
  do {                                                                                 \
    if (!::seam::test::is_root()) {                                                    \
      if (::seam::test::in_ci()) FAIL() << "BPF tests must run as root under CI=true"; \
      GTEST_SKIP() << "needs root (BPF); run the suite as root";                       \
    }                                                                                  \
  } while (0)
