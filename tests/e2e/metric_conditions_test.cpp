// Metrics with `while` and `after`, counted in the kernel: usdt_app serves two requests with 3
// and 5 kernel launches, and launches once more after each, outside any request. A count `while
// usdt.in_request` is exactly the launches made inside requests, `while not` the others, and
// `after usdt.request_start within 1m` every launch that follows a request's start on its thread,
// and `by usdt.request_start.id` the launches of each request.
#include <gtest/gtest.h>

#include <regex>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

// Every sample line of `family` (name and labels, then the value), as /metrics serves them.
std::vector<std::string> samples(const std::string& metrics, const std::string& family) {
  std::vector<std::string> out;
  std::istringstream in(metrics);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(family + " ", 0) == 0 || line.rfind(family + "{", 0) == 0) out.push_back(line);
  return out;
}

TEST(MetricConditions, WhileAndAfterCountExactlyTheMatchingCalls) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("m.seam",
                                "use usdt, cuda\n"
                                "metric in_request on cuda.launch while usdt.in_request count\n"
                                "metric outside on cuda.launch while not usdt.in_request count by pid\n"
                                "metric after_start on cuda.launch after usdt.request_start within 1m count\n"
                                "metric first_request on cuda.launch after usdt.request_start within 1m\n"
                                "    where usdt.request_start.id == 201 while usdt.in_request count\n"
                                "metric per_request on cuda.launch while usdt.in_request\n"
                                "    after usdt.request_start within 1m count by usdt.request_start.id\n");
  Child app({std::string(SEAM_FIXTURE_DIR) + "/usdt_app", std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12",
             dir.path() + "/requests.log", "201:3:0", "202:5:0"});
  ASSERT_TRUE(app.wait_for_line("ready", 10s));
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(app.pid()), "--listen", listen});
  ASSERT_TRUE(seam.wait_for_notice("attached", "libinference.so", 30s)) << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", 10s)) << seam.stderr_text();
  app.send_line("go");
  ASSERT_TRUE(app.wait_for_line("done", 20s));
  std::string pid = std::to_string(app.pid());
  std::string metrics;
  ASSERT_TRUE(wait_until(
      [&] {
        metrics = http_get("http://" + listen + "/metrics");
        return samples(metrics, "seam_after_start_total") ==
               std::vector<std::string>{"seam_after_start_total 10"};
      },
      10s))
      << metrics;
  EXPECT_EQ(samples(metrics, "seam_in_request_total"), std::vector<std::string>{"seam_in_request_total 8"});
  EXPECT_EQ(samples(metrics, "seam_outside_total"),
            std::vector<std::string>{"seam_outside_total{pid=\"" + pid + "\"} 2"});
  EXPECT_EQ(samples(metrics, "seam_first_request_total"),
            std::vector<std::string>{"seam_first_request_total 3"});
  // Launches per request id: the id the request's start left on the thread.
  EXPECT_EQ(samples(metrics, "seam_per_request_total"),
            (std::vector<std::string>{"seam_per_request_total{id=\"201\"} 3",
                                      "seam_per_request_total{id=\"202\"} 5"}));
  EXPECT_EQ(app.wait(), 0);
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

}  // namespace
}  // namespace seam::test
