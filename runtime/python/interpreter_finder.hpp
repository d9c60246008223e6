#pragma once
// Which CPython a process runs and where its _PyRuntime is: the file among those discovery found
// (libpython, or a statically linked python executable) that defines _PyRuntime (.dynsym or
// .symtab: Debian's stripped python3.11 exports it), its version (Py_Version, 3.11+, else the
// file's name: libpython3.9.so, python3.9), and the symbol's address in the process (the file's
// load bias from /proc/PID/maps), and whether the file is a free-threaded build.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/discover/library_file.hpp"
#include "runtime/elf/result.hpp"

namespace seam::runtime::python {

struct Interpreter {
  std::string path;  // as the process sees it
  int major = 0, minor = 0;
  uint64_t runtime = 0;  // &_PyRuntime in the process
  // What says it is a free-threaded build (runtime/python/free_threaded.hpp); "": nothing does.
  std::string free_threaded = {};
};

elf::Result<Interpreter> find_interpreter(pid_t pid, const std::vector<discover::LibraryFile>& files);

// 3.<minor> from a file name: "libpython3.11.so.1.0", "python3.9"; 0 when it says none.
int minor_from_name(const std::string& path);

}  // namespace seam::runtime::python
