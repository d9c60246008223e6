#include "runtime/discover/library_scanner.hpp"

#include <fcntl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "runtime/discover/scan_round.hpp"
#include "runtime/elf/proc_maps.hpp"
#include "runtime/elf/proc_maps_round.hpp"
#include "runtime/elf/resolve.hpp"
#include "runtime/elf/soname.hpp"

namespace seam::runtime::discover {
namespace {

std::string_view base_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Folders hold static archives and linker scripts next to shared objects (libpython3.11.a).
// Without blocking, and a regular file only: a path a process names may be a FIFO by now.
bool is_elf(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return false;
  }
  char magic[4] = {};
  bool elf = ::read(fd, magic, sizeof magic) == 4 && std::memcmp(magic,
                                                                 "\x7f"
                                                                 "ELF",
                                                                 4) == 0;
  ::close(fd);
  return elf;
}

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

void LibrarySet::add(LibraryFile file) {
  auto [it, inserted] = index_.try_emplace({file.dev, file.ino}, files_.size());
  if (inserted) {
    files_.push_back(std::move(file));
    return;
  }
  std::vector<pid_t>& pids = files_[it->second].pids;
  for (pid_t pid : file.pids) {
    if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
  }
}

LibraryScanner::LibraryScanner(std::vector<plan::LibraryPattern> patterns) : patterns_(std::move(patterns)) {
  if (::stat("/", &own_root_) != 0) own_root_ = {};
  if (::stat("/proc/self/ns/mnt", &own_mount_ns_) != 0) own_mount_ns_ = {};
}

bool LibraryScanner::matches(std::string_view name, bool executable) const {
  for (const plan::LibraryPattern& p : patterns_) {
    if (p.executable == executable && elf::glob_match(p.glob, name)) return true;
  }
  return false;
}

bool LibraryScanner::has_library_patterns() const {
  return std::any_of(patterns_.begin(), patterns_.end(),
                     [](const plan::LibraryPattern& p) { return !p.executable; });
}

LibraryScanner::ProcessRoot LibraryScanner::process_root(pid_t pid) const {
  ProcessRoot root;
  root.proc_root = elf::proc_path(pid, "root");
  struct stat st;
  // A container can share our root filesystem yet mount other things on it (a private tmpfs,
  // a bind-mounted CUDA), so the mount namespace must match too.
  struct stat ns;
  bool same_ns = ::stat(elf::proc_path(pid, "ns/mnt").c_str(), &ns) != 0 || same_file(ns, own_mount_ns_);
  root.ours = ::stat(root.proc_root.c_str(), &st) != 0 || (same_file(st, own_root_) && same_ns);
  if (!root.ours) {
    char target[4096];
    ssize_t n = ::readlink(root.proc_root.c_str(), target, sizeof target - 1);
    if (n > 0) root.seen_from_here.assign(target, static_cast<size_t>(n));
  }
  return root;
}

// The kernel prints /proc/PID/maps and /proc/PID/exe paths relative to the reader's root when
// it can reach the file from there: a chrooted process's library shows as /srv/jail/usr/lib/x.so.
// Files in another mount namespace (containers) show as the process sees them. Either way the
// process's view, under /proc/PID/root, opens the right file from here.
std::pair<std::string, std::string> LibraryScanner::paths_for(const ProcessRoot& root,
                                                              std::string_view path) {
  if (root.ours) return {std::string(path), std::string(path)};
  std::string_view inner = path;
  const std::string& prefix = root.seen_from_here;
  if (prefix.size() > 1 && path.size() > prefix.size() && path.substr(0, prefix.size()) == prefix &&
      path[prefix.size()] == '/') {
    inner.remove_prefix(prefix.size());
  }
  return {root.proc_root + std::string(inner), std::string(inner)};
}

namespace {

std::string map_files_path(pid_t pid, const elf::MapsEntry& m) {
  char range[48];
  std::snprintf(range, sizeof range, "%llx-%llx", static_cast<unsigned long long>(m.start),
                static_cast<unsigned long long>(m.end));
  return elf::proc_path(pid, "map_files/") + range;
}

}  // namespace

bool LibraryScanner::scan_process(pid_t pid, LibrarySet& out) {
  ProcessRoot root;
  bool root_known = false;
  auto paths = [&](std::string_view path) {
    if (!root_known) {
      root = process_root(pid);
      root_known = true;
    }
    return paths_for(root, path);
  };

  if (std::any_of(patterns_.begin(), patterns_.end(),
                  [](const plan::LibraryPattern& p) { return p.executable; })) {
    std::string exe_link = elf::proc_path(pid, "exe");
    char target[4096];
    ssize_t n = ::readlink(exe_link.c_str(), target, sizeof target - 1);
    std::string_view exe(target, n > 0 ? static_cast<size_t>(n) : 0);
    struct stat st;
    constexpr std::string_view kDeleted = " (deleted)";
    bool deleted = exe.size() >= kDeleted.size() && exe.substr(exe.size() - kDeleted.size()) == kDeleted;
    if (!exe.empty() && !deleted && matches(base_name(exe), true) && ::stat(exe_link.c_str(), &st) == 0) {
      auto [attach, display] = paths(exe);
      out.add({std::move(attach), std::move(display), st.st_dev, st.st_ino, {pid}});
    }
  }

  if (!has_library_patterns()) return true;
  std::optional<std::string_view> maps = elf::executable_maps_text(pid, maps_buf_);  // once a round
  // A zombie (exited, not yet reaped) has maps that read as empty: not a process to look at.
  if (!maps || maps->empty()) return false;
  elf::for_each_executable_mapping(*maps, [&](const elf::MapsEntry& m) {
    if (m.inode == 0 || m.path.empty() || m.path.front() != '/') return;
    // A memfd ("/memfd:NAME (deleted)") or a deleted file may have any name: its contents may
    // still be the library, which its SONAME tells (read through map_files below).
    bool by_name = matches(base_name(m.path), false);
    if (!by_name && !m.deleted) return;
    struct stat st;
    if (by_name && m.is_file()) {
      auto [attach, display] = paths(m.path);
      // The path now names another file than the one mapped (replaced since): not this library.
      // (Only comparable on the same device: overlayfs shows the lower layer's device in maps.)
      if (::stat(attach.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
          !(st.st_dev == makedev(m.dev_major, m.dev_minor) && st.st_ino != m.inode)) {
        out.add({std::move(attach), std::move(display), st.st_dev, st.st_ino, {pid}});
        return;
      }
    }
    // A deleted file, a memfd, a path maps cannot print (a newline shows as \012) or one
    // replaced since: /proc/PID/map_files opens exactly the mapped file while the process lives,
    // and a uprobe attached through it stays on that inode.
    std::string via = map_files_path(pid, m);
    if (::stat(via.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != m.inode) return;
    if (!by_name && !soname_matches(via, st)) return;
    std::string display(m.path);
    if (m.deleted) display += " (deleted)";
    out.add({std::move(via), std::move(display), st.st_dev, st.st_ino, {pid}});
  });
  return true;
}

namespace {

// A memfd or an open file loaded through its descriptor: the name is the same for every
// process and says nothing of the contents.
bool names_a_descriptor(std::string_view name) {
  constexpr std::string_view kDescriptors[] = {"/proc/self/fd/", "/dev/fd/", "/proc/thread-self/fd/"};
  for (std::string_view prefix : kDescriptors)
    if (name.substr(0, prefix.size()) == prefix) return true;
  return false;
}

}  // namespace

bool LibraryScanner::soname_matches(const std::string& path, const struct stat& st) {
  auto [it, fresh] = soname_verdicts_.try_emplace({st.st_dev, st.st_ino}, false);
  if (!fresh) return it->second;
  if (soname_verdicts_.size() > kMaxSonameVerdicts) {  // bounded: forget all but this one
    soname_verdicts_.clear();
    it = soname_verdicts_.try_emplace({st.st_dev, st.st_ino}, false).first;
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  std::string soname = elf::read_soname(fd);
  ::close(fd);
  it->second = !soname.empty() && matches(soname, false);
  return it->second;
}

bool LibraryScanner::wants(std::string_view name) const {
  if (names_a_descriptor(name)) return has_library_patterns();
  return matches(base_name(name), false);
}

std::vector<bool> LibraryScanner::scan_loaded(pid_t pid, const std::vector<LoadedName>& names,
                                              LibrarySet& out) {
  std::vector<bool> done(names.size(), true);
  std::vector<size_t> wanted;
  for (size_t i = 0; i < names.size(); ++i)
    if (wants(names[i].name)) {
      wanted.push_back(i);
      done[i] = false;
    }
  if (wanted.empty()) return done;
  bool running = scan_process(pid, out);
  ProcessRoot root;
  if (running) root = process_root(pid);
  // Each name as a path (through the process's root while it runs): done only when the process
  // was seen mapping that very file. Otherwise (gone already, a zombie, or unmapped since) the
  // file is taken as the loader named it, and the name is left for the next process: in a
  // container the path here may be another file. Never a descriptor's name (ours here, and the
  // next process's descriptor is another file), a cut one or a relative one.
  for (size_t i : wanted) {
    const LoadedName& n = names[i];
    if (names_a_descriptor(n.name) || n.truncated || n.name.empty() || n.name.front() != '/') continue;
    auto [path, display] =
        running ? paths_for(root, n.name) : std::pair{std::string(n.name), std::string(n.name)};
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (running && out.contains(st.st_dev, st.st_ino)) {
      done[i] = true;
      continue;
    }
    if (is_elf(path)) out.add({path, display, st.st_dev, st.st_ino, {pid}});
  }
  return done;
}

void LibraryScanner::add_system_file(const std::string& path, LibrarySet& out) {
  if (!matches(base_name(path), false)) return;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || !is_elf(path)) return;
  out.add({path, path, st.st_dev, st.st_ino, {}});
}

void LibraryScanner::scan_system(LibrarySet& out) {
  if (!has_library_patterns()) return;
  const std::shared_ptr<const std::vector<std::string>> candidates = system_library_candidates();
  for (const std::string& path : *candidates) add_system_file(path, out);
}

}  // namespace seam::runtime::discover
