#pragma once
// The user-space half of a `cpython_gil` state or a `pystack` walk (plan::MemoryReader, readers
// "cpython_gil" and "cpython_frames"): for each process discovery finds mapping the reader's
// library, works out where its interpreter keeps the GIL and the thread's frames and writes that
// into the program's per-process map (plan::CpythonProcess), so that the kernel reads them where
// a rule needs them; the frame namer learns the process's layout to name the frames. A process
// seam cannot read (another version, a free-threaded build, no _PyRuntime) gets one notice
// naming the interpreter and its path, and stays out of the map: the state is false there and
// no Python frames are shown, never a guess.
#include <sys/types.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/discover/library_file.hpp"
#include "runtime/output/alert.hpp"
#include "runtime/python/frame_namer.hpp"

namespace seam::runtime::python {

class GilReader {
 public:
  GilReader(plan::MemoryReader reader, int map_fd, std::function<void(Notice)> notice,
            std::shared_ptr<FrameNamer> namer = nullptr)
      : reader_(std::move(reader)), map_fd_(map_fd), notice_(std::move(notice)), namer_(std::move(namer)) {}

  // Process `pid` maps `files` (of the reader's library) now; none: it no longer runs one (exec).
  void on_process(pid_t pid, const std::vector<discover::LibraryFile>& files);

  size_t processes() const { return known_.size(); }

 private:
  void forget(pid_t pid);
  bool frames_only() const { return reader_.reader == "cpython_frames"; }
  // What a process seam cannot read misses.
  std::string consequence() const {
    return frames_only() ? "no Python frames are shown for it" : reader_.state + " is false in it";
  }

  plan::MemoryReader reader_;
  int map_fd_ = -1;
  std::function<void(Notice)> notice_;
  std::shared_ptr<FrameNamer> namer_;
  std::map<pid_t, std::string> known_;              // in the map: pid -> "interpreter path@&_PyRuntime"
  std::set<std::pair<pid_t, std::string>> warned_;  // notices given about processes not read
};

}  // namespace seam::runtime::python
