#pragma once
// The user-space half of a `cpython_gil` state (plan::MemoryReader): for each process discovery
// finds mapping the reader's library, works out where its interpreter keeps the GIL and writes
// that into the program's per-process map (plan::CpythonProcess), so that the kernel reads the
// GIL where a rule tests it. A process seam cannot read (another version, a free-threaded build,
// no _PyRuntime) gets one notice naming the interpreter and its path, and stays out of the map:
// the state is false there, never a guess.
#include <sys/types.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/discover/library_file.hpp"
#include "runtime/output/alert.hpp"

namespace seam::runtime::python {

class GilReader {
 public:
  GilReader(plan::MemoryReader reader, int map_fd, std::function<void(Notice)> notice)
      : reader_(std::move(reader)), map_fd_(map_fd), notice_(std::move(notice)) {}

  // Process `pid` maps `files` (of the reader's library) now; none: it no longer runs one (exec).
  void on_process(pid_t pid, const std::vector<discover::LibraryFile>& files);

  size_t processes() const { return known_.size(); }

 private:
  void forget(pid_t pid);

  plan::MemoryReader reader_;
  int map_fd_ = -1;
  std::function<void(Notice)> notice_;
  std::map<pid_t, std::string> known_;              // in the map: pid -> "interpreter path@&_PyRuntime"
  std::set<std::pair<pid_t, std::string>> warned_;  // notices given about processes not read
};

}  // namespace seam::runtime::python
