// Metrics under `seam run`: a histogram kept in the kernel is served on --listen, and a
// windowed rule over it fires from user space with the series' labels.
#include <gtest/gtest.h>
#include <unistd.h>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

TEST(MetricsRun, HistogramIsServedAndWindowedRuleFires) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("win.seam",
                                "use cuda\n"
                                "metric sync_latency on cuda.stream_sync hist duration by comm\n"
                                "rule sync_p99\n"
                                "    when p99(sync_latency) over 2s > 5ms\n"
                                "    alert critical \"cudaStreamSynchronize p99 is {value}\"\n");
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child caller({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "30", "10000"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  SeamRun seam(dir.path(), {rules, "--listen", listen, "--pid", std::to_string(caller.pid())});
  ASSERT_TRUE(seam.wait_for_notice("listening", listen, std::chrono::seconds(30))) << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(20)));
  // 30 calls of at least 10 ms: none at or below 2^23 ns (le = 0.008388608 s).
  std::string body;
  EXPECT_TRUE(wait_until(
      [&] {
        body = run_command({"curl", "-s", "http://" + listen + "/metrics"}).out;
        return body.find("seam_sync_latency_seconds_count{comm=\"cuda_caller\"} 30") != std::string::npos;
      },
      std::chrono::seconds(5)))
      << body;
  EXPECT_NE(body.find("seam_sync_latency_seconds_bucket{comm=\"cuda_caller\",le=\"0.008388608\"} 0"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("seam_sync_latency_seconds_bucket{comm=\"cuda_caller\",le=\"+Inf\"} 30"),
            std::string::npos);
  EXPECT_TRUE(wait_until([&] { return !seam.alerts("sync_p99").empty(); }, std::chrono::seconds(5)));
  EXPECT_EQ(run_command({"curl", "-s", "http://" + listen + "/healthz"}).out.substr(0, 2), "ok");
  EXPECT_EQ(seam.stop(), 0);
  std::vector<nlohmann::json> alerts = seam.alerts("sync_p99");
  ASSERT_EQ(alerts.size(), 1u);                           // once per window per series, not once a second
  EXPECT_EQ(alerts[0].value("comm", ""), "cuda_caller");  // the series names the alert
  EXPECT_EQ(alerts[0].value("status", ""), "firing");
  EXPECT_GT(alerts[0]["fields"].value("value", 0), 5'000'000);
}

}  // namespace
}  // namespace seam::test
