// `seam run --pods URL`: a process in a pod-like cgroup gets its pod's name and namespace from a
// PodList served in the test; an endpoint that does not answer is reported once and seam goes on.
// The same list names the pod's containers: `except container == "sidecar"` silences the sidecar.
#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>

#include "runtime/identity/cgroup_resolver.hpp"
#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

struct PodCgroup {
  std::string uid = "7a6b5c4d-3e2f-1a0b-9c8d-7e6f5a4b3c2d";
  std::string container = std::string(64, 'd');
  std::string rel() const { return rel_of(container); }
  std::string rel_of(const std::string& container_id) const {
    std::string slice = uid;
    for (char& ch : slice)
      if (ch == '-') ch = '_';
    return "/seam-pods-test-" + std::to_string(getpid()) + "/kubepods.slice/kubepods-besteffort.slice/" +
           "kubepods-besteffort-pod" + slice + ".slice/cri-containerd-" + container_id + ".scope";
  }
};

uint64_t served(const std::string& metrics, const std::string& series) {
  std::smatch m;
  std::regex line("(^|\n)" + std::regex_replace(series, std::regex(R"([{}])"), R"(\$&)") + " ([0-9]+)\n");
  return std::regex_search(metrics, m, line) ? std::stoull(m[2]) : 0;
}

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

TEST(PodsRun, ContainerNamesFromThePodListWorkInExceptAndByContainer) {
  SEAM_REQUIRE_ROOT();
  ASSERT_FALSE(runtime::cgroup2_root().empty()) << "no cgroup2 hierarchy mounted";
  PodCgroup pod;
  const std::string app_id = "a1" + std::string(62, 'a'), sidecar_id = "b2" + std::string(62, 'b');
  TestCgroup app_cgroup(pod.rel_of(app_id));
  TestCgroup sidecar_cgroup(pod.rel_of(sidecar_id));
  TempDir dir;
  dir.write("www/pods",
            R"({"kind":"PodList","items":[{"metadata":{"uid":")" + pod.uid +
                R"(","name":"llm-server-0","namespace":"inference"},"status":{"containerStatuses":[)" +
                R"({"name":"app","containerID":"containerd://)" + app_id + R"("},)" +
                R"({"name":"sidecar","containerID":"containerd://)" + sidecar_id + R"("}]}}]})");
  LoopbackServer server(
      test_python(),
      [&](int port) {
        return std::vector<std::string>{"-m",        "http.server", std::to_string(port), "--bind",
                                        "127.0.0.1", "--directory", dir.path() + "/www"};
      },
      dir.path() + "/server.log", std::chrono::seconds(2));
  ASSERT_TRUE(server.wait_ready("/pods", std::chrono::seconds(10))) << read_file(dir.path() + "/server.log");
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child app({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "3", "0"});
  Child sidecar({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "4", "0"});
  ASSERT_TRUE(app.wait_for_line("ready", std::chrono::seconds(10)));
  ASSERT_TRUE(sidecar.wait_for_line("ready", std::chrono::seconds(10)));
  ASSERT_TRUE(app_cgroup.add(app.pid()));
  ASSERT_TRUE(sidecar_cgroup.add(sidecar.pid()));
  // By name, and (the same container) by short id: a test of `container` holds on either.
  std::string rules = dir.write("r.seam",
                                "use cuda\n"
                                "rule not_sidecar on cuda.stream_sync except container == \"sidecar\" "
                                "alert info \"s\"\n"
                                "rule sidecar_by_id on cuda.stream_sync where container == \"" +
                                    sidecar_id.substr(0, 12) +
                                    "\" alert info \"i\"\n"
                                    "metric syncs on cuda.stream_sync count by container\n");
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  SeamRun seam(dir.path(), {rules, "--pods", server.url("/pods"), "--listen", listen});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(60)))
      << seam.stderr_text();
  app.send_line("go");
  sidecar.send_line("go");
  ASSERT_TRUE(app.wait_for_line("done", std::chrono::seconds(10)));
  ASSERT_TRUE(sidecar.wait_for_line("done", std::chrono::seconds(10)));
  ASSERT_TRUE(wait_until([&] { return of_pid(seam.alerts("not_sidecar"), app.pid()).size() >= 3; },
                         std::chrono::seconds(10)))
      << seam.stderr_text();
  ASSERT_TRUE(wait_until([&] { return of_pid(seam.alerts("sidecar_by_id"), sidecar.pid()).size() >= 4; },
                         std::chrono::seconds(10)))
      << seam.stderr_text();
  std::string metrics;
  ASSERT_TRUE(wait_until(
      [&] {
        metrics = http_get("http://" + listen + "/metrics");
        return served(metrics, "seam_syncs_total{container=\"app\"}") == 3 &&
               served(metrics, "seam_syncs_total{container=\"sidecar\"}") == 4;
      },
      std::chrono::seconds(10)))
      << metrics;
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  EXPECT_EQ(of_pid(seam.alerts("not_sidecar"), app.pid()).size(), 3u);
  EXPECT_EQ(of_pid(seam.alerts("not_sidecar"), sidecar.pid()).size(), 0u) << "the sidecar is silenced";
  EXPECT_EQ(of_pid(seam.alerts("sidecar_by_id"), sidecar.pid()).size(), 4u);
  EXPECT_EQ(of_pid(seam.alerts("sidecar_by_id"), app.pid()).size(), 0u);
  for (const nlohmann::json& a : of_pid(seam.alerts("not_sidecar"), app.pid())) {
    EXPECT_EQ(a.value("container_name", ""), "app") << a.dump();
    EXPECT_EQ(a.value("container_id", ""), app_id) << a.dump();
  }
  for (const nlohmann::json& a : of_pid(seam.alerts("sidecar_by_id"), sidecar.pid()))
    EXPECT_EQ(a.value("container_name", ""), "sidecar") << a.dump();
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
