#include "runtime/run/rules_watcher.hpp"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace seam::runtime {

namespace fs = std::filesystem;

namespace {

// Rename-over (vim, sed -i) arrives as MOVED_TO on the rule file; a plain save as CLOSE_WRITE.
constexpr uint32_t kMask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE |
                           IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB;

bool ends_with(const char* name, const char* suffix) {
  size_t n = std::strlen(name), s = std::strlen(suffix);
  return n >= s && std::strcmp(name + n - s, suffix) == 0;
}

}  // namespace

RulesWatcher::RulesWatcher(std::vector<std::string> paths, int64_t quiet_ms, int64_t max_ms)
    : paths_(std::move(paths)), debounce_(quiet_ms, max_ms) {
  fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) {
    error_ = std::string("inotify: ") + std::strerror(errno);
    return;
  }
  add_watches();
}

RulesWatcher::~RulesWatcher() {
  if (fd_ >= 0) close(fd_);
}

void RulesWatcher::add(const std::string& dir) {
  int wd = inotify_add_watch(fd_, dir.c_str(), kMask);
  if (wd >= 0)
    dirs_[wd] = dir;
  else if (error_.empty())
    error_ = "cannot watch " + dir + ": " + std::strerror(errno);
}

void RulesWatcher::add_watches() {
  for (const std::string& path : paths_) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      fs::path parent = fs::path(path).parent_path();
      add(parent.empty() ? "." : parent.string());
      files_.insert(fs::path(path).filename().string());  // any name given as a file: a bundle too
      continue;
    }
    add(path);
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::end(it); it.increment(ec)) {
      std::error_code type_ec;
      if (it->is_directory(type_ec)) add(it->path().string());
    }
  }
}

bool RulesWatcher::poll(int64_t now_ms) {
  if (fd_ < 0) return false;
  alignas(inotify_event) char buf[8192];
  bool new_dirs = false;
  while (true) {
    ssize_t n = read(fd_, buf, sizeof buf);
    if (n <= 0) break;
    for (char* p = buf; p < buf + n;) {
      auto* ev = reinterpret_cast<inotify_event*>(p);
      p += sizeof(inotify_event) + ev->len;
      if (ev->mask & IN_IGNORED) {
        dirs_.erase(ev->wd);
        continue;
      }
      bool dir = (ev->mask & IN_ISDIR) != 0;
      bool seam_file = ev->len > 0 && (ends_with(ev->name, ".seam") || files_.count(ev->name));
      bool self = (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) != 0;
      if (!(dir || seam_file || self || (ev->mask & IN_Q_OVERFLOW))) continue;  // swap files, temp files
      if (dir && (ev->mask & (IN_CREATE | IN_MOVED_TO))) new_dirs = true;
      debounce_.event(now_ms);
    }
  }
  if (new_dirs) add_watches();  // a folder made below a watched one: watch it too
  return debounce_.due(now_ms);
}

}  // namespace seam::runtime
