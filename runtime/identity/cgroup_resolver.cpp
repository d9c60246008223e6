#include "runtime/identity/cgroup_resolver.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <deque>

namespace seam::runtime {
namespace {

constexpr long kCgroup2SuperMagic = 0x63677270;

bool is_cgroup2(const std::string& path) {
  struct statfs fs {};
  return statfs(path.c_str(), &fs) == 0 && fs.f_type == kCgroup2SuperMagic;
}

}  // namespace

std::string cgroup2_root() {
  if (is_cgroup2("/sys/fs/cgroup")) return "/sys/fs/cgroup";
  if (is_cgroup2("/sys/fs/cgroup/unified")) return "/sys/fs/cgroup/unified";
  return "";
}

CgroupResolver::CgroupResolver(CgroupResolverOptions options)
    : options_(std::move(options)), root_(options_.root.empty() ? cgroup2_root() : options_.root) {}

uint64_t CgroupResolver::walks() const {
  std::lock_guard lock(mu_);
  return walks_;
}

void CgroupResolver::refresh() {
  std::lock_guard lock(mu_);
  auto last = last_walk_;
  bool walked = walked_;
  walk_locked();
  last_walk_ = last;  // a miss after this still walks (a cgroup made since)
  walked_ = walked;
}

const std::string* CgroupResolver::path_locked(uint64_t cgroup_id) const {
  if (auto it = paths_.find(cgroup_id); it != paths_.end()) return &it->second;
  if (auto it = previous_.find(cgroup_id); it != previous_.end()) return &it->second;
  return nullptr;
}

// Breadth-first over directories, by d_ino (on kernfs the inode number is the cgroup id), so no
// stat per cgroup. Bounded by max_walk directories. What the walk before saw moves to previous_:
// a cgroup removed since is still known for one walk, and no further (ids are never reused).
void CgroupResolver::walk_locked() {
  ++walks_;
  last_walk_ = std::chrono::steady_clock::now();
  walked_ = true;
  previous_ = std::move(paths_);
  paths_.clear();
  if (root_.empty()) return;
  struct stat st {};
  if (stat(root_.c_str(), &st) == 0) paths_[st.st_ino] = "/";
  std::deque<std::string> pending{""};
  size_t visited = 0;
  while (!pending.empty() && visited < options_.max_walk) {
    std::string rel = std::move(pending.front());
    pending.pop_front();
    ++visited;
    DIR* dir = opendir((root_ + rel).c_str());
    if (!dir) continue;  // removed while we walked
    while (dirent* e = readdir(dir)) {
      if (e->d_type != DT_DIR || e->d_name[0] == '.') continue;
      std::string child = rel + "/" + e->d_name;
      paths_[e->d_ino] = child;
      pending.push_back(std::move(child));
    }
    closedir(dir);
  }
}

Identity CgroupResolver::resolve(uint64_t cgroup_id) {
  Identity id;
  {
    std::lock_guard lock(mu_);
    if (auto it = identities_.find(cgroup_id); it != identities_.end()) {
      id = it->second;
    } else {
      const std::string* path = path_locked(cgroup_id);
      if (!path &&
          (!walked_ || std::chrono::steady_clock::now() - last_walk_ >= options_.min_walk_interval)) {
        walk_locked();
        path = path_locked(cgroup_id);
      }
      if (!path) return id;  // not cached: it may appear later
      id = parse_cgroup_path(*path);
      identities_[cgroup_id] = id;
    }
  }
  // Outside the lock: the pod directory may fetch over HTTP.
  if (options_.pods && !id.pod_uid.empty()) {
    if (auto pod = options_.pods->lookup(id.pod_uid, id.container_id)) {
      id.pod_name = pod->name;
      id.pod_namespace = pod->namespace_;
      if (auto c = pod->containers.find(id.container_id); c != pod->containers.end())
        id.container_name = c->second;
    }
  }
  return id;
}

}  // namespace seam::runtime
