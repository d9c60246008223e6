#pragma once
// cgroup id → Identity, cached. A cgroup v2 id (what bpf_get_current_cgroup_id() returns) is the
// inode number of the cgroup's directory in the cgroup2 filesystem, so an unknown id is found by
// walking that filesystem once (bounded), which also caches every other cgroup seen on the way.
// An alert is resolved after its event, and a container's cgroup goes with its last process: a
// container that calls and exits at once is gone before a walk on the miss could see it. So
// refresh() walks ahead of the alerts (seam run: before `ready`, then periodically), and a
// cgroup stays known for one walk after its directory went.
// Thread-safe: sinks call it from their delivery threads.
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "runtime/identity/identity.hpp"
#include "runtime/identity/pod_directory.hpp"

namespace seam::runtime {

struct CgroupResolverOptions {
  std::string root;                                   // "" : the cgroup2 mount (see cgroup2_root())
  size_t max_walk = 200'000;                          // directories visited per walk
  std::chrono::milliseconds min_walk_interval{1000};  // misses in between do not walk again
  std::shared_ptr<PodDirectory> pods;                 // pod name and namespace, optional
};

// /sys/fs/cgroup when it is a cgroup2 mount, else /sys/fs/cgroup/unified (hybrid hosts), else "".
std::string cgroup2_root();

class CgroupResolver {
 public:
  explicit CgroupResolver(CgroupResolverOptions options = {});

  // Unknown ids (the cgroup is gone, or outside the root) give an Identity with no path.
  Identity resolve(uint64_t cgroup_id);
  // Walks now, whatever the last walk: the cgroups that exist now are known to later resolves
  // even once they are gone. Does not hold back the walk of a later miss.
  void refresh();
  const std::string& root() const { return root_; }
  uint64_t walks() const;

 private:
  void walk_locked();
  const std::string* path_locked(uint64_t cgroup_id) const;

  CgroupResolverOptions options_;
  std::string root_;
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, std::string> paths_;     // inode → path relative to root ("/a/b")
  std::unordered_map<uint64_t, std::string> previous_;  // the walk before: cgroups since removed
  std::unordered_map<uint64_t, Identity> identities_;
  std::chrono::steady_clock::time_point last_walk_{};
  bool walked_ = false;
  uint64_t walks_ = 0;
};

}  // namespace seam::runtime
