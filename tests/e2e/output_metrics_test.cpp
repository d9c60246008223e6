// Outputs' own counters on /metrics: a webhook whose endpoint is dead shows its retries and the
// alerts its full queue dropped.
#include <gtest/gtest.h>

#include <regex>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/stalled_stdout.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

TEST(OutputMetrics, DeadWebhookShowsRetriesAndDrops) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("sync.seam",
                                "use cuda\n"
                                "rule every_sync on cuda.stream_sync alert info \"sync {duration}\"\n");
  std::string hook = "http://127.0.0.1:" + std::to_string(free_port()) + "/hook";
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child caller({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "10", "100"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  SeamRun seam(dir.path(),
               {rules, "--pid", std::to_string(caller.pid()), "--listen", listen, "--output",
                "webhook:" + hook + ",queue=2,batch=1,retry=20ms,retry_max=50ms,timeout=200ms,drain=0ms"});
  ASSERT_TRUE(seam.wait_for_notice("listening", listen, std::chrono::seconds(30))) << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(10)));
  // The label shows the URL's scheme and host only (its path may hold a secret).
  std::string label = "{output=\"webhook:" + hook.substr(0, hook.rfind("/hook")) + "\"";
  std::string body;
  EXPECT_TRUE(wait_until(
      [&] {
        body = http_get("http://" + listen + "/metrics");
        long long queued = metric_sample(body, "seam_output_accepted_total" + label + "}");
        long long full = metric_sample(body, "seam_output_dropped_total" + label + ",reason=\"queue_full\"}");
        // Every alert is either queued or dropped because the queue (2) was full.
        return queued + full == 10 && full > 0 &&
               metric_sample(body, "seam_output_retries_total" + label + "}") > 0;
      },
      std::chrono::seconds(10)))
      << body;
  EXPECT_EQ(metric_sample(body, "seam_output_delivered_total" + label + "}"), 0) << body;
  EXPECT_GE(metric_sample(body, "seam_output_queue_depth" + label + "}"), 0) << body;
  EXPECT_NE(body.find("# TYPE seam_output_queue_depth gauge"), std::string::npos);
  EXPECT_EQ(metric_sample(body, "seam_rule_alerts_total{rule=\"every_sync\"}"), 10) << body;
  EXPECT_EQ(seam.stop(), 0);
}

}  // namespace
}  // namespace seam::test
