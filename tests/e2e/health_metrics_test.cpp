// seam's own health on /metrics against a run whose probes are known (docs/metrics.md, "seam's
// own health"): under --pid, one process maps one libcudart file; the rule on cuda.stream_sync
// attaches an entry and a return probe to each of its two functions; the rule on net.tcp_send
// needs a kprobe and a kretprobe, which this kernel lacks (unavailable, not failed). The same
// scrape has no series twice, and promtool accepts it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <set>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

bool has_kprobes() {
  return access("/sys/kernel/tracing/kprobe_events", F_OK) == 0;
}

TEST(HealthMetrics, FilesProbesAndUnavailableProbesOfAKnownRun) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("h.seam",
                                "use cuda, net\n"
                                "rule slow_sync on cuda.stream_sync where duration > 1s\n"
                                "    alert warning \"sync {duration}\"\n"
                                "rule tcp_stall on net.tcp_send where duration > 1s\n"
                                "    alert warning \"send {duration}\"\n");
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child caller({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "1", "1000"});
  ASSERT_TRUE(caller.wait_for_line("ready", 10s));
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller.pid()), "--listen", listen});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", 60s)) << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("listening", listen, 10s)) << seam.stderr_text();
  // seam's own figures are taken at each sample (every second), the first one after "ready".
  std::string body;
  auto has = [&](const std::string& line) { return body.find("\n" + line + "\n") != std::string::npos; };
  EXPECT_TRUE(wait_until(
      [&] {
        body = http_get("http://" + listen + "/metrics");
        return has("seam_library_files_attached 1");
      },
      10s))
      << body;
  EXPECT_TRUE(has("seam_processes_tracked 1")) << body;
  EXPECT_TRUE(has("seam_rule_probes_attached{rule=\"slow_sync\"} 4")) << body;
  EXPECT_TRUE(has("seam_rule_probes_failed{rule=\"slow_sync\"} 0")) << body;
  EXPECT_TRUE(has("seam_probes_failed 0")) << body;
  if (has_kprobes()) {
    EXPECT_TRUE(has("seam_rule_probes_attached{rule=\"tcp_stall\"} 2")) << body;
  } else {
    EXPECT_TRUE(has("seam_rule_probes_unavailable{rule=\"tcp_stall\"} 2")) << body;
    EXPECT_TRUE(has("seam_rule_probes_attached{rule=\"tcp_stall\"} 0")) << body;
    EXPECT_TRUE(has("seam_probes_unavailable 2")) << body;
  }
  std::set<std::string> series;
  for (size_t begin = 0, end; begin < body.size(); begin = end + 1) {
    end = body.find('\n', begin);
    if (end == std::string::npos) end = body.size();
    std::string line = body.substr(begin, end - begin);
    if (line.empty() || line[0] == '#') continue;
    EXPECT_TRUE(series.insert(line.substr(0, line.rfind(' '))).second) << "duplicate series: " << line;
  }
  const char* promtool = "/usr/bin/promtool";
  if (access(promtool, X_OK) == 0) {
    auto result = run_command({promtool, "check", "metrics"}, body);
    EXPECT_EQ(result.exit_code, 0) << result.out << result.err << "\n" << body;
  } else if (in_ci()) {
    ADD_FAILURE() << promtool << " is missing: scripts/setup-deps.sh installs it";
  }
  caller.send_line("go");
  EXPECT_TRUE(caller.wait_for_line("done", 20s));
}

// `--listen 127.0.0.1:0` takes any free port and the listening notice names it: scripts (the GPU
// check) ask for one this way instead of guessing a port that something else may hold.
TEST(HealthMetrics, PortZeroServesOnTheFreePortTheNoticeNames) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("z.seam", "use cuda\nrule r on cuda.stream_sync alert info \"x\"\n");
  SeamRun seam(dir.path(), {rules, "--listen", "127.0.0.1:0"});
  ASSERT_TRUE(seam.wait_for_notice("listening", "metrics on http://127.0.0.1:", 60s)) << seam.stderr_text();
  std::string message = seam.notices("listening").at(0).value("message", "");
  const std::string prefix = "metrics on http://127.0.0.1:";
  ASSERT_EQ(message.rfind(prefix, 0), 0U) << message;
  int port = std::atoi(message.c_str() + prefix.size());
  ASSERT_GT(port, 0) << message;
  EXPECT_EQ(message, prefix + std::to_string(port) + "/metrics");
  EXPECT_EQ(http_get("http://127.0.0.1:" + std::to_string(port) + "/healthz"), "ok\n");
}

}  // namespace
}  // namespace seam::test
