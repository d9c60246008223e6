#include "compiler/plan/cgroup_path.hpp"

#include <unistd.h>

namespace seam::plan {

namespace {

constexpr const char* kSysCgroup = "/sys/fs/cgroup";

std::string trimmed(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

std::string cgroup_v2_root() {
  // A v2 mount has cgroup.controllers at its root; a hybrid host mounts the v1 controllers at
  // /sys/fs/cgroup and v2 at /sys/fs/cgroup/unified.
  if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0) return kSysCgroup;
  if (access("/sys/fs/cgroup/unified/cgroup.procs", F_OK) == 0) return "/sys/fs/cgroup/unified";
  return kSysCgroup;
}

std::string cgroup_dir(const std::string& selector) {
  std::string s = trimmed(selector);
  if (s.rfind(kSysCgroup, 0) == 0) return s;
  return trimmed(cgroup_v2_root() + (s.empty() || s[0] != '/' ? "/" : "") + s);
}

std::string cgroup_v2_relative(const std::string& selector) {
  std::string dir = cgroup_dir(selector), root = cgroup_v2_root();
  if (dir == root) return "/";
  if (dir.rfind(root + "/", 0) != 0) return {};
  return dir.substr(root.size());
}

}  // namespace seam::plan
