// Alerts carry where the process runs: a process the test moves into container-like and
// pod-like cgroups is labelled with the container id and pod UID parsed from the path.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/identity/cgroup_resolver.hpp"
#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

TEST(IdentityRun, ContainerAndPodComeFromTheCgroupPath) {
  SEAM_REQUIRE_ROOT();
  ASSERT_FALSE(runtime::cgroup2_root().empty()) << "no cgroup2 hierarchy mounted";
  const std::string container(64, 'c');
  const std::string pod = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  std::string pod_slice = pod;
  for (char& ch : pod_slice)
    if (ch == '-') ch = '_';
  TestCgroup cgroup("/seam-id-test-" + std::to_string(getpid()) +
                    "/kubepods.slice/kubepods-burstable.slice/" + "kubepods-burstable-pod" + pod_slice +
                    ".slice/cri-containerd-" + container + ".scope");
  TempDir dir;
  std::string rules = dir.write("r.seam", "use cuda\nrule every_sync on cuda.stream_sync alert info \"s\"\n");
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child caller({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "1", "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  ASSERT_TRUE(cgroup.add(caller.pid()));
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller.pid())});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
      << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(10)));
  ASSERT_TRUE(wait_until([&] { return !seam.alerts("every_sync").empty(); }, std::chrono::seconds(5)));
  EXPECT_EQ(seam.stop(), 0);
  nlohmann::json a = seam.alerts("every_sync").at(0);
  EXPECT_EQ(a.value("container_id", ""), container) << a.dump();
  EXPECT_EQ(a.value("pod_uid", ""), pod) << a.dump();
  EXPECT_NE(a.value("cgroup_path", "").find("cri-containerd-" + container), std::string::npos) << a.dump();
}

}  // namespace
}  // namespace seam::test
