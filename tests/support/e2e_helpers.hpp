#pragma once
// Small helpers end-to-end tests share: a free loopback port, an HTTP GET, a cgroup the test
// creates (and removes) to place a process in, and a Python caller of the fixture library.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace seam::test {

// A TCP port on 127.0.0.1 that nothing listens on right now.
int free_port();

// GET url: the body of a 200 answer, "" otherwise (2 s timeout).
std::string http_get(const std::string& url);

// The value of one sample line ("name{labels} value") of a /metrics body, -1 when absent.
long long metric_sample(const std::string& body, const std::string& series);

// A server program (Alertmanager, Prometheus) on a free loopback port, its output in `log`;
// stopped with SIGTERM, then SIGKILL after `grace`, when the object dies.
class LoopbackServer {
 public:
  // `args(port)` gives the program's arguments for the port it is to listen on.
  LoopbackServer(const std::string& binary, const std::function<std::vector<std::string>(int port)>& args,
                 std::string log, std::chrono::seconds grace);
  ~LoopbackServer();
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;
  int port() const { return port_; }
  std::string url(const std::string& path = "") const;
  // Waits until GET `path` answers 200.
  bool wait_ready(const std::string& path, std::chrono::milliseconds timeout) const;
  std::string log() const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string log_;
  std::chrono::seconds grace_;
};

// The cgroup directories of `rel` under the cgroup2 root, removed at the end; a process added
// to it is moved back to the root first.
class TestCgroup {
 public:
  explicit TestCgroup(std::string rel);
  ~TestCgroup();
  TestCgroup(const TestCgroup&) = delete;
  TestCgroup& operator=(const TestCgroup&) = delete;
  bool add(pid_t pid);

 private:
  std::string root_, rel_;
  pid_t pid_ = -1;
};

// The argv of a Python process that prints "ready", then calls the fixture libcudart's cudaMalloc
// forever with a sequence number (1, 2, ...) as the size, sleeping `pause_s` seconds ("0.002")
// between calls: a rule's alerts name each call by its size.
std::vector<std::string> numbered_malloc_caller(const std::string& pause_s);

// Moves every thread of `pid` onto CPU 0 (false if one could not be moved): a test that needs
// two processes to share one CPU pins both.
bool pin_to_cpu0(pid_t pid);

// Stops every thread of `pid` with SIGSTOP and waits until the kernel shows each one stopped
// (false if that did not happen in time). A test that needs a reader that cannot drain (a flood
// into a ring that must overflow) stops the reader: on a fast machine a running one keeps up.
bool stop_process(pid_t pid, std::chrono::milliseconds timeout);

}  // namespace seam::test
