#pragma once
// Who a process is, as an operator sees it: its cgroup, the container it runs in, and the
// Kubernetes pod around that container. Parsed from cgroup paths, whose naming encodes all of it:
//   containerd (systemd driver)  /kubepods.slice/kubepods-burstable.slice/
//                                  kubepods-burstable-pod<uid_with_underscores>.slice/cri-containerd-<64hex>.scope
//   CRI-O                        .../crio-<64hex>.scope
//   Docker                       /system.slice/docker-<64hex>.scope, /docker/<64hex>
//   cgroupfs driver              /kubepods/besteffort/pod<uid>/<64hex>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace seam::runtime {

struct Identity {
  std::string cgroup_path;        // "/kubepods.slice/...", "" when unknown
  std::string container_id;       // 64 hex digits, "" when not in a container
  std::string container_runtime;  // "containerd", "cri-o", "docker", "" when unknown
  std::string pod_uid;            // "8f1c2e0a-...", with dashes
  std::string qos_class;          // "guaranteed", "burstable", "besteffort", "" outside Kubernetes
  std::string container_name;     // the container's name in its pod spec, from the kubelet (--pods)
  std::string pod_name;           // from the kubelet, when configured
  std::string pod_namespace;
};

// Everything a cgroup path alone says (cgroup_path is set to `path`).
Identity parse_cgroup_path(std::string_view path);

// The cgroup v2 path in the text of /proc/PID/cgroup ("0::/path"), or, on a v1-only host, the
// path of the first hierarchy that names a container or pod (else the first line's). "" if none.
std::string cgroup_path_from_proc(std::string_view proc_cgroup_text);

// What alert formatting asks: the identity of a cgroup id (bpf_get_current_cgroup_id()).
using IdentityLookup = std::function<Identity(uint64_t cgroup_id)>;

}  // namespace seam::runtime
