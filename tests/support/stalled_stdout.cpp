#include "support/stalled_stdout.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>

#include "support/e2e_helpers.hpp"

namespace seam::test {

using namespace std::chrono_literals;

StalledStdoutFlood::StalledStdoutFlood() : listen("127.0.0.1:" + std::to_string(free_port())) {}

StalledStdoutFlood::~StalledStdoutFlood() {
  seam.reset();
  if (read_end_ >= 0) close(read_end_);
}

bool StalledStdoutFlood::start(std::string* why) {
  std::string rules = dir.write("rules/sync.seam", kEverySyncRule);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) return *why = "pipe2 failed", false;
  read_end_ = pipe_fds[0];  // never read
  std::string fixtures = SEAM_FIXTURE_DIR;
  caller = std::make_unique<Child>(std::vector<std::string>{
      fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", std::to_string(kCalls), "0"});
  if (!caller->wait_for_line("ready", 10s)) return *why = "the caller did not start", false;
  seam = std::make_unique<SeamRun>(dir.path(),
                                   std::vector<std::string>{rules, "--pid", std::to_string(caller->pid()),
                                                            "--listen", listen, "--output", "stdout"},
                                   pipe_fds[1]);
  close(pipe_fds[1]);
  if (!seam->wait_for_notice("listening", listen, 60s))
    return *why = "no /metrics: " + seam->stderr_text(), false;
  caller->send_line("go");
  if (!caller->wait_for_line("done", 60s)) return *why = "the caller did not finish its calls", false;
  return true;
}

}  // namespace seam::test
