#pragma once
// A library file a uprobe can attach to, found in a process's mappings or on the system's
// library paths. One per inode: the kernel's uprobes are per inode, not per path or per process.
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace seam::runtime::discover {

struct LibraryFile {
  // Opens the right inode from seam's mount namespace: the plain path when the process shares
  // seam's root, else through /proc/PID/root (/proc/1234/root/usr/lib/libcudart.so.12).
  std::string path_for_attach;
  std::string display_path;  // as the process sees it: /usr/lib/libcudart.so.12
  dev_t dev = 0;
  ino_t ino = 0;
  std::vector<pid_t> pids;  // processes seen mapping it (empty for a file found on system paths)
};

struct Scope {
  std::optional<pid_t> pid;           // only this process; otherwise every process in /proc
  bool include_system_paths = false;  // also the ld.so cache and the standard library folders
};

}  // namespace seam::runtime::discover
