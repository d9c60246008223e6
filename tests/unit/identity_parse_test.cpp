// Container and pod identity from every cgroup naming scheme, and the cgroup path from
// /proc/PID/cgroup on v2, hybrid and v1-only hosts.
#include <gtest/gtest.h>

#include "runtime/identity/identity.hpp"

namespace seam::runtime {
namespace {

const std::string kId = "3f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const std::string kUid = "8f1c2e0a-1b2c-4d5e-8f90-a1b2c3d4e5f6";
const std::string kUidUnderscored = "8f1c2e0a_1b2c_4d5e_8f90_a1b2c3d4e5f6";

struct Case {
  std::string path;
  std::string container_id, runtime, pod_uid, qos;
};

TEST(IdentityParse, EveryNamingScheme) {
  const Case cases[] = {
      {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + kUidUnderscored +
           ".slice/cri-containerd-" + kId + ".scope",
       kId, "containerd", kUid, "burstable"},
      {"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + kUidUnderscored +
           ".slice/crio-" + kId + ".scope",
       kId, "cri-o", kUid, "besteffort"},
      {"/kubepods.slice/kubepods-pod" + kUidUnderscored + ".slice/cri-containerd-" + kId + ".scope", kId,
       "containerd", kUid, "guaranteed"},
      {"/kubepods/besteffort/pod" + kUid + "/" + kId, kId, "containerd", kUid, "besteffort"},
      {"/kubepods/burstable/pod" + kUid + "/" + kId, kId, "containerd", kUid, "burstable"},
      {"/kubepods/pod" + kUid + "/" + kId, kId, "containerd", kUid, "guaranteed"},
      {"/system.slice/docker-" + kId + ".scope", kId, "docker", "", ""},
      {"/docker/" + kId, kId, "docker", "", ""},
      {"/machine.slice/libpod-" + kId + ".scope", kId, "podman", "", ""},
      // A pod's own slice (the pause container's parent): a pod but no container.
      {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + kUidUnderscored + ".slice", "", "",
       kUid, "burstable"},
      // Not containers: a user session, a service, the root, look-alikes.
      {"/user.slice/user-1000.slice/session-3.scope", "", "", "", ""},
      {"/system.slice/containerd.service", "", "", "", ""},
      {"/", "", "", "", ""},
      {"/system.slice/docker-" + kId.substr(1) + ".scope", "", "", "", ""},
      {"/system.slice/docker-" + kId + ".service", "", "", "", ""},
      {"/pod" + kUid + "/x", "", "", "", ""},  // pod<uid> means a pod only under kubepods
      {"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podnotauid.slice", "", "", "",
       "burstable"},
  };
  for (const Case& c : cases) {
    Identity id = parse_cgroup_path(c.path);
    EXPECT_EQ(id.cgroup_path, c.path);
    EXPECT_EQ(id.container_id, c.container_id) << c.path;
    EXPECT_EQ(id.container_runtime, c.runtime) << c.path;
    EXPECT_EQ(id.pod_uid, c.pod_uid) << c.path;
    EXPECT_EQ(id.qos_class, c.qos) << c.path;
    EXPECT_EQ(id.pod_name, "");
  }
}

TEST(IdentityParse, ProcCgroupV2Line) {
  EXPECT_EQ(cgroup_path_from_proc("0::/system.slice/docker-" + kId + ".scope\n"),
            "/system.slice/docker-" + kId + ".scope");
  EXPECT_EQ(cgroup_path_from_proc("0::/\n"), "/");
}

TEST(IdentityParse, ProcCgroupHybridPrefersTheV2Line) {
  std::string text =
      "12:memory:/docker/" + kId + "\n3:cpu,cpuacct:/docker/" + kId + "\n0::/docker/" + kId + "\n";
  EXPECT_EQ(cgroup_path_from_proc(text), "/docker/" + kId);
  EXPECT_EQ(cgroup_path_from_proc("4:memory:/a\n0::/b\n"), "/b");
}

TEST(IdentityParse, ProcCgroupV1OnlyPicksTheHierarchyThatNamesAContainer) {
  std::string text = "9:name=systemd:/\n4:memory:/kubepods/burstable/pod" + kUid + "/" + kId + "\n1:cpu:/\n";
  EXPECT_EQ(cgroup_path_from_proc(text), "/kubepods/burstable/pod" + kUid + "/" + kId);
  EXPECT_EQ(cgroup_path_from_proc("9:name=systemd:/user.slice\n1:cpu:/\n"), "/user.slice");
  EXPECT_EQ(cgroup_path_from_proc("5:cpu:/with:colon\n"), "/with:colon");
  EXPECT_EQ(cgroup_path_from_proc(""), "");
  EXPECT_EQ(cgroup_path_from_proc("garbage\n"), "");
}

}  // namespace
}  // namespace seam::runtime
