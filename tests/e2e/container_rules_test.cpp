// Container identity in rules and metrics: two processes the test moves into container-like
// cgroups (Docker's naming, ids of 64 hex digits); a rule `where container == A` alerts for the
// first only, one `except container in (B)` for everything but the second, and a metric `by
// container` serves one series per container with the exact number of calls.
#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>

#include "runtime/identity/cgroup_resolver.hpp"
#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

uint64_t served(const std::string& metrics, const std::string& series) {
  std::smatch m;
  std::regex line("(^|\n)" + std::regex_replace(series, std::regex(R"([{}])"), R"(\$&)") + " ([0-9]+)\n");
  return std::regex_search(metrics, m, line) ? std::stoull(m[2]) : 0;
}

TEST(ContainerRules, WhereExceptAndByContainerUseTheCgroupsIdentity) {
  SEAM_REQUIRE_ROOT();
  ASSERT_FALSE(runtime::cgroup2_root().empty()) << "no cgroup2 hierarchy mounted";
  const std::string a_id = "a1" + std::string(62, 'a'), b_id = "b2" + std::string(62, 'b');
  std::string base = "/seam-crules-" + std::to_string(getpid());
  TestCgroup a_cgroup(base + "/a/docker-" + a_id + ".scope");
  TestCgroup b_cgroup(base + "/b/docker-" + b_id + ".scope");
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child a({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "3", "0"});
  Child b({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "4", "0"});
  ASSERT_TRUE(a.wait_for_line("ready", 10s));
  ASSERT_TRUE(b.wait_for_line("ready", 10s));
  ASSERT_TRUE(a_cgroup.add(a.pid()));
  ASSERT_TRUE(b_cgroup.add(b.pid()));

  TempDir dir;
  std::string rules = dir.write("r.seam",
                                "use cuda\n"
                                "rule in_a on cuda.stream_sync where container == \"" +
                                    a_id.substr(0, 12) +
                                    "\" alert info \"a\"\n"
                                    "rule not_b on cuda.stream_sync except container_id in (\"" +
                                    b_id +
                                    "\") alert info \"not b\"\n"
                                    "metric syncs on cuda.stream_sync count by container\n");
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  SeamRun seam(dir.path(), {rules, "--listen", listen});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", 60s)) << seam.stderr_text();
  a.send_line("go");
  b.send_line("go");
  ASSERT_TRUE(a.wait_for_line("done", 10s));
  ASSERT_TRUE(b.wait_for_line("done", 10s));
  ASSERT_TRUE(wait_until([&] { return of_pid(seam.alerts("in_a"), a.pid()).size() >= 3; }, 10s))
      << seam.stderr_text();
  ASSERT_TRUE(wait_until([&] { return of_pid(seam.alerts("not_b"), a.pid()).size() >= 3; }, 10s))
      << seam.stderr_text();
  std::string metrics;
  std::string a_series = "seam_syncs_total{container=\"" + a_id.substr(0, 12) + "\"}";
  std::string b_series = "seam_syncs_total{container=\"" + b_id.substr(0, 12) + "\"}";
  ASSERT_TRUE(wait_until(
      [&] {
        metrics = http_get("http://" + listen + "/metrics");
        return served(metrics, a_series) == 3 && served(metrics, b_series) == 4;
      },
      10s))
      << metrics;
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  EXPECT_EQ(of_pid(seam.alerts("in_a"), a.pid()).size(), 3u);
  EXPECT_EQ(of_pid(seam.alerts("in_a"), b.pid()).size(), 0u);
  EXPECT_EQ(of_pid(seam.alerts("not_b"), a.pid()).size(), 3u);
  EXPECT_EQ(of_pid(seam.alerts("not_b"), b.pid()).size(), 0u);
  for (const nlohmann::json& alert : of_pid(seam.alerts("in_a"), a.pid()))
    EXPECT_EQ(alert.value("container_id", ""), a_id) << alert.dump();
}

}  // namespace
}  // namespace seam::test
