// Metrics with `while` and `after`, counted in the kernel: usdt_app serves two requests with 3
// and 5 kernel launches, and launches once more after each, outside any request. A count `while
// usdt.in_request` is exactly the launches made inside requests, `while not` the others, and
// `after usdt.request_start within 1m` every launch that follows a request's start on its thread
// while that request is in flight (request_start begins the span usdt.request, keyed by id), and
// `by usdt.request_start.id` the launches of each request, observed into `per_request_ended` when
// the request ends (its series then deleted).
#include <gtest/gtest.h>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

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
  const std::string app_pid = std::to_string(app.pid());  // wait() forgets it
  // --pid ends the run when usdt_app exits; --summary prints every metric then (the counts of the
  // kernel's maps, as /metrics serves them).
  SeamRun seam(dir.path(), {rules, "--pid", app_pid, "--listen", "off", "--summary"});
  ASSERT_TRUE(seam.wait_for_notice("attached", "libinference.so", 30s)) << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", 10s)) << seam.stderr_text();
  app.send_line("go");
  ASSERT_TRUE(app.wait_for_line("done", 20s));
  EXPECT_EQ(app.wait(), 0);
  ASSERT_TRUE(wait_until(
      [&] { return seam.stdout_text().find("metric per_request_ended") != std::string::npos; }, 20s))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::string summary = seam.stdout_text();
  EXPECT_NE(summary.find("metric in_request (count) from " + rules + ":2\n  (all): 8\n"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("metric outside (count by pid) from " + rules + ":3\n  pid=" + app_pid + ": 2\n"),
            std::string::npos)
      << summary;
  // Not the launch after each request: the request had ended.
  EXPECT_NE(summary.find("metric after_start (count) from " + rules + ":4\n  (all): 8\n"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("metric first_request (count) from " + rules + ":5\n  (all): 3\n"),
            std::string::npos)
      << summary;
  // Launches per request id: the id the request's start left on the thread, each request's count
  // observed when it ended (3 and 5), its own series gone.
  EXPECT_NE(summary.find("metric per_request_ended (hist) from " + rules +
                         ":7\n  (all): 2 values, avg 4, p50 3, p90 5, p99 5\n"),
            std::string::npos)
      << summary;
  // No series left under per_request: its heading is followed by the blank line that ends it. (Not a
  // search for "id=20", which the pid series of `outside` matches when the pid begins with 20.)
  EXPECT_NE(summary.find("metric per_request (count by id) from " + rules + ":7\n\n"), std::string::npos)
      << summary;
}

// A request that starts on usdt_app's main thread and ends on another (203, handed over) leaves
// its id and `usdt.in_request` on the main thread; the launch the main thread makes next belongs
// to no request. The request example's rule (rules/requests.seam) reports only the launches of
// requests in flight, and the launches per request are 3, 0 and 5.
TEST(MetricConditions, ALaunchAfterARequestEndedElsewhereBelongsToNoRequest) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("m.seam",
                                "use usdt, cuda\n"
                                "rule launch_in_request on cuda.launch while usdt.in_request\n"
                                "    after usdt.request_start within 1m\n"
                                "    alert info \"kernel launch in request {usdt.request_start.id}\"\n"
                                "metric per_request on cuda.launch while usdt.in_request\n"
                                "    after usdt.request_start within 1m count by usdt.request_start.id\n");
  Child app({std::string(SEAM_FIXTURE_DIR) + "/usdt_app", std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12",
             dir.path() + "/requests.log", "201:3:0", "203:0:1000:t", "202:5:0"});
  ASSERT_TRUE(app.wait_for_line("ready", 10s));
  const pid_t pid = app.pid();  // wait() forgets it
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(pid), "--listen", "off", "--summary"});
  ASSERT_TRUE(seam.wait_for_notice("attached", "libinference.so", 30s)) << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", 10s)) << seam.stderr_text();
  app.send_line("go");
  ASSERT_TRUE(app.wait_for_line("done", 20s));
  EXPECT_EQ(app.wait(), 0);
  ASSERT_TRUE(wait_until(
      [&] { return seam.stdout_text().find("metric per_request_ended") != std::string::npos; }, 20s))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::vector<nlohmann::json> launches = of_pid(seam.alerts("launch_in_request"), pid);
  EXPECT_EQ(launches.size(), 8u);
  for (const nlohmann::json& a : launches)
    EXPECT_EQ(a.dump().find("request 203"), std::string::npos) << a.dump();
  std::string summary = seam.stdout_text();
  EXPECT_NE(
      summary.find("metric per_request_ended (hist) from " + rules + ":5\n  (all): 3 values, avg 2.67, "),
      std::string::npos)
      << summary;
}

}  // namespace
}  // namespace seam::test
