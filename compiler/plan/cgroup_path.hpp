#pragma once
// Where a cgroup selector's directory is: a path under the cgroup v2 mount (/sys/fs/cgroup on a
// v2 host, /sys/fs/cgroup/unified on a hybrid one), or a full /sys/fs/cgroup/... path. The
// checker and the runtime's scope keeper resolve selectors the same way.
#include <string>

namespace seam::plan {

// The v2 mount: /sys/fs/cgroup/unified where the host is hybrid, else /sys/fs/cgroup.
std::string cgroup_v2_root();

// "/a/b" -> "<v2 root>/a/b"; "/sys/fs/cgroup/..." as written.
std::string cgroup_dir(const std::string& selector);

// The selector as /proc/PID/cgroup's "0::" line writes it ("/a/b"), to test membership of a
// subtree; empty when the path is not under the v2 root.
std::string cgroup_v2_relative(const std::string& selector);

}  // namespace seam::plan
