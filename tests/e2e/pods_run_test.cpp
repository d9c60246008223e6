// `seam run --pods URL`: a process in a pod-like cgroup gets its pod's name and namespace from a
// PodList served in the test; an endpoint that does not answer is reported once and seam goes on.
#include <gtest/gtest.h>
#include <unistd.h>

#include "runtime/identity/cgroup_resolver.hpp"
#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

struct PodCgroup {
  std::string uid = "7a6b5c4d-3e2f-1a0b-9c8d-7e6f5a4b3c2d";
  std::string container = std::string(64, 'd');
  std::string rel() const {
    std::string slice = uid;
    for (char& ch : slice)
      if (ch == '-') ch = '_';
    return "/seam-pods-test-" + std::to_string(getpid()) + "/kubepods.slice/kubepods-besteffort.slice/" +
           "kubepods-besteffort-pod" + slice + ".slice/cri-containerd-" + container + ".scope";
  }
};

TEST(PodsRun, PodNameAndNamespaceComeFromThePodList) {
  SEAM_REQUIRE_ROOT();
  ASSERT_FALSE(runtime::cgroup2_root().empty()) << "no cgroup2 hierarchy mounted";
  PodCgroup pod;
  TestCgroup cgroup(pod.rel());
  TempDir dir;
  dir.write("www/pods", R"({"kind":"PodList","items":[{"metadata":{"uid":")" + pod.uid +
                            R"(","name":"llm-server-0","namespace":"inference"}}]})");
  LoopbackServer server(
      test_python(),
      [&](int port) {
        return std::vector<std::string>{"-m",        "http.server", std::to_string(port), "--bind",
                                        "127.0.0.1", "--directory", dir.path() + "/www"};
      },
      dir.path() + "/server.log", std::chrono::seconds(2));
  ASSERT_TRUE(server.wait_ready("/pods", std::chrono::seconds(10))) << read_file(dir.path() + "/server.log");
  std::string rules = dir.write("r.seam", "use cuda\nrule every_sync on cuda.stream_sync alert info \"s\"\n");
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child caller({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "1", "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  ASSERT_TRUE(cgroup.add(caller.pid()));
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller.pid()), "--pods", server.url("/pods")});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
      << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(10)));
  ASSERT_TRUE(wait_until([&] { return !seam.alerts("every_sync").empty(); }, std::chrono::seconds(5)));
  EXPECT_EQ(seam.stop(), 0);
  nlohmann::json a = seam.alerts("every_sync").at(0);
  EXPECT_EQ(a.value("pod_uid", ""), pod.uid) << a.dump();
  EXPECT_EQ(a.value("pod_name", ""), "llm-server-0") << a.dump();
  EXPECT_EQ(a.value("pod_namespace", ""), "inference") << a.dump();
  EXPECT_TRUE(seam.notices("pods-unavailable").empty());
}

TEST(PodsRun, ADeadEndpointIsReportedOnceAndNeverStopsSeam) {
  SEAM_REQUIRE_ROOT();
  ASSERT_FALSE(runtime::cgroup2_root().empty()) << "no cgroup2 hierarchy mounted";
  PodCgroup pod;
  TestCgroup cgroup(pod.rel());
  TempDir dir;
  std::string rules = dir.write("r.seam", "use cuda\nrule every_sync on cuda.stream_sync alert info \"s\"\n");
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child caller({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "3", "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  ASSERT_TRUE(cgroup.add(caller.pid()));
  std::string dead = "http://127.0.0.1:" + std::to_string(free_port()) + "/pods";
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller.pid()), "--pods", dead});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
      << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(10)));
  // The URL is shown as its origin (a path or query may carry a secret: docs/operations.md).
  std::string origin = dead.substr(0, dead.rfind("/pods"));
  EXPECT_TRUE(seam.wait_for_notice("pods-unavailable", origin, std::chrono::seconds(5)))
      << seam.stderr_text();
  EXPECT_EQ(seam.stderr_text().find(dead), std::string::npos) << "the path is not shown";
  EXPECT_TRUE(seam.running());
  EXPECT_EQ(seam.stop(), 0);
  auto alerts = seam.alerts("every_sync");
  ASSERT_EQ(alerts.size(), 3u);
  EXPECT_EQ(alerts[0].value("pod_uid", ""), pod.uid);
  EXPECT_EQ(alerts[0].value("pod_name", ""), "");
  EXPECT_EQ(seam.notices("pods-unavailable").size(), 1u);
}

}  // namespace
}  // namespace seam::test
