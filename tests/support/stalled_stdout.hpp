#pragma once
// The stalled-stdout flood two e2e suites share (output_loss_test, hardening_test): seam traces a
// caller of the fixture libcudart with one alert per call, its stdout is a pipe nobody reads,
// its JSON file and /metrics work; the caller has made every call when start() returns true.
#include <memory>
#include <string>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {

// One alert per cudaStreamSynchronize (info, no limit).
inline constexpr const char* kEverySyncRule =
    "use cuda\n\nrule every_sync\n    on cuda.stream_sync\n    alert info \"sync {duration}\"\n";

class StalledStdoutFlood {
 public:
  static constexpr long kCalls = 30000;
  StalledStdoutFlood();
  ~StalledStdoutFlood();  // closes the pipe's read end (seam is stopped before, by its own object)
  StalledStdoutFlood(const StalledStdoutFlood&) = delete;
  StalledStdoutFlood& operator=(const StalledStdoutFlood&) = delete;

  // Starts the caller and seam, waits for /metrics, lets the caller make its calls; false (with
  // why) when a step does not happen in time.
  bool start(std::string* why);

  TempDir dir;
  std::string listen;  // host:port of /metrics
  std::unique_ptr<Child> caller;
  std::unique_ptr<SeamRun> seam;

 private:
  int read_end_ = -1;
};

}  // namespace seam::test
