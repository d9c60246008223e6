#include "runtime/safety/rule_file_safety.hpp"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <vector>

namespace seam::runtime {
namespace {

constexpr const char* kEscape = "--allow-insecure-rules";

std::string mode_text(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::string user_text(uid_t uid) {
  std::string name = std::to_string(uid);
  if (passwd* pw = getpwuid(uid)) name = pw->pw_name;
  return "user '" + name + "' (uid " + std::to_string(uid) + ")";
}

std::string group_text(gid_t gid) {
  if (group* gr = getgrgid(gid)) return "group '" + std::string(gr->gr_name) + "'";
  return "group " + std::to_string(gid);
}

bool trusted_owner(uid_t uid) {
  return uid == 0 || uid == geteuid();
}

// What is wrong with one file or directory, as "it is ..." / "its directory D is ...", with the fix.
std::optional<std::string> problem(const std::string& subject, const std::string& target,
                                   const struct stat& st, bool ancestor) {
  bool sticky_dir = ancestor && (st.st_mode & S_ISVTX);
  if (!trusted_owner(st.st_uid))
    return subject + " owned by " + user_text(st.st_uid) + ", not root; fix with chown root " + target;
  if ((st.st_mode & S_IWOTH) && !sticky_dir)
    return subject + " writable by everyone (mode " + mode_text(st.st_mode) +
           (ancestor ? ", no sticky bit" : "") + "); fix with chmod go-w " + target;
  if ((st.st_mode & S_IWGRP) && st.st_gid != 0 && !sticky_dir)
    return subject + " writable by " + group_text(st.st_gid) + " (mode " + mode_text(st.st_mode) +
           "); fix with chmod go-w " + target;
  return std::nullopt;
}

// Every directory above `path` (absolute, normalized), nearest first, "/" last.
std::vector<std::string> ancestors(const std::filesystem::path& path) {
  std::vector<std::string> out;
  for (std::filesystem::path p = path.parent_path(); !p.empty(); p = p.parent_path()) {
    out.push_back(p.string());
    if (p == p.root_path()) break;
  }
  return out;
}

}  // namespace

std::optional<std::string> insecure_reason(const std::string& path) {
  namespace fs = std::filesystem;
  std::string refusing = "refusing " + path + ": ";
  std::string escape = ", or pass " + std::string(kEscape);

  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return refusing + "cannot check who may write it: " + strerror(errno);
  if (auto p = problem("it is", path, st, false)) return refusing + *p + escape;

  std::error_code ec;
  fs::path given = fs::absolute(path, ec).lexically_normal();
  char resolved[PATH_MAX];
  std::vector<fs::path> chains{given};
  if (realpath(path.c_str(), resolved) && fs::path(resolved) != given) chains.emplace_back(resolved);
  for (const fs::path& chain : chains) {
    for (const std::string& dir : ancestors(chain)) {
      struct stat ds {};
      if (stat(dir.c_str(), &ds) != 0)
        return refusing + "cannot check who may write its directory " + dir + ": " + strerror(errno);
      if (auto p = problem("its directory " + dir + " is", dir, ds, true)) return refusing + *p + escape;
    }
  }
  return std::nullopt;
}

}  // namespace seam::runtime
