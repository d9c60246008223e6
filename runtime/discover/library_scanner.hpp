#pragma once
// The search behind find_libraries() and Rescanner: which files of a process (its executable
// mappings, its executable) or of the system's library folders match a set of patterns.
#include <sys/stat.h>
#include <sys/types.h>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/discover/library_file.hpp"

namespace seam::runtime::discover {

// Found files in the order found, one per (dev, ino); a file seen again gains the new pid.
class LibrarySet {
 public:
  void add(LibraryFile file);
  bool contains(dev_t dev, ino_t ino) const { return index_.count({dev, ino}) != 0; }
  const std::vector<LibraryFile>& files() const { return files_; }
  std::vector<LibraryFile> take() { return std::move(files_); }

 private:
  std::vector<LibraryFile> files_;
  std::map<std::pair<dev_t, ino_t>, size_t> index_;
};

// A name the dynamic loader gives for an object it has just loaded.
struct LoadedName {
  std::string_view name;
  bool truncated = false;  // cut short: not a whole path
};

class LibraryScanner {
 public:
  explicit LibraryScanner(std::vector<plan::LibraryPattern> patterns);

  // Files process `pid` maps executable (library patterns) or runs (executable patterns).
  // A process that is gone, or that we may not look at, adds nothing (and returns false).
  bool scan_process(pid_t pid, LibrarySet& out);
  // What the dynamic loader says process `pid` has just loaded (runtime/run/loader_hook.hpp):
  // the process's files while it runs, and each wanted name that is a whole absolute path to an
  // ELF file (through its root while it runs, as named once it has gone). Returns, per name,
  // whether the loader may stop sending it: true for names no pattern wants, and for a wanted
  // name only when the running process was seen mapping that file. A gone process's name, a
  // descriptor's name (a memfd) or a cut one stays, so the next process is looked at again.
  std::vector<bool> scan_loaded(pid_t pid, const std::vector<LoadedName>& names, LibrarySet& out);
  // Whether a name the loader gives could be one of this scanner's files: its base name
  // matches a library pattern, or it names a descriptor (a memfd loaded as /proc/self/fd/N).
  bool wants(std::string_view loaded_name) const;
  // Library-pattern matches in the ld.so cache and the standard library folders.
  void scan_system(LibrarySet& out);

  bool has_library_patterns() const;

 private:
  bool matches(std::string_view base_name, bool executable) const;
  // How paths in this process's /proc entries become a path to attach and a path to show.
  struct ProcessRoot {
    bool ours = true;            // same root folder and mount namespace: its paths are ours
    std::string proc_root;       // "/proc/PID/root"
    std::string seen_from_here;  // readlink of proc_root: "/srv/jail" for a chroot, "/" in a container
  };
  ProcessRoot process_root(pid_t pid) const;
  // Our view of a path in the process's /proc entries -> {path_for_attach, display_path}.
  static std::pair<std::string, std::string> paths_for(const ProcessRoot& root, std::string_view path);
  void add_system_file(const std::string& path, LibrarySet& out);
  // Whether the file open at `path` (a map_files entry) has a SONAME a library pattern matches;
  // remembered per inode (a few thousand at most), so each memfd or deleted file is read once.
  bool soname_matches(const std::string& path, const struct stat& st);
  static constexpr size_t kMaxSonameVerdicts = 4096;
  std::map<std::pair<dev_t, ino_t>, bool> soname_verdicts_;

  std::vector<plan::LibraryPattern> patterns_;
  std::string maps_buf_;  // reused across processes
  struct stat own_root_ {};
  struct stat own_mount_ns_ {};
};

}  // namespace seam::runtime::discover
