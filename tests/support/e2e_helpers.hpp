#pragma once
// Small helpers end-to-end tests share: a free loopback port, an HTTP GET, and a cgroup the
// test creates (and removes) to place a process in.
#include <sys/types.h>

#include <string>

namespace seam::test {

// A TCP port on 127.0.0.1 that nothing listens on right now.
int free_port();

// GET url: the body of a 200 answer, "" otherwise (2 s timeout).
std::string http_get(const std::string& url);

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

}  // namespace seam::test
