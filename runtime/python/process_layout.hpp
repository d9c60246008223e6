#pragma once
// What seam reads in one Python process, or why it reads nothing there: the interpreter file it
// maps (interpreter_finder.hpp), then the GIL's and the frames' layout for its version (the
// tables for 3.8 to 3.12, the debug offsets in its memory for 3.13). A free-threaded build, a
// version seam has no layout for, or a file that says no version is refused with the reason,
// which the notice about the process quotes: seam never guesses a layout.
#include <sys/types.h>

#include <string>
#include <vector>

#include "runtime/discover/library_file.hpp"
#include "runtime/elf/result.hpp"
#include "runtime/python/cpython_layout.hpp"
#include "runtime/python/frame_layout.hpp"
#include "runtime/python/interpreter_finder.hpp"

namespace seam::runtime::python {

struct ProcessLayout {
  Interpreter interpreter;
  GilLayout gil;
  FrameLayout frames;
};

// "CPython 3.11", "CPython 3.13t" (free-threaded), "CPython (version unknown)".
std::string version_name(const Interpreter& in);

// The layouts for process `pid`, which maps `files` (of the python module's library). The error
// is what the process runs and why seam cannot read it: "runs CPython 3.13t (/usr/lib/
// libpython3.13t.so.1.0), which seam cannot read: it is a free-threaded build (...)".
elf::Result<ProcessLayout> process_layout(pid_t pid, const std::vector<discover::LibraryFile>& files);

}  // namespace seam::runtime::python
