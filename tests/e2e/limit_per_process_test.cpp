// `limit N per D per process` under `seam run`: two processes each over the limit get N alerts
// each (one cannot use up the other's), and each one's held-back count is reported with its pid.
#include <gtest/gtest.h>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

// The "suppressed" notices about one process (their message names its pid), summed.
uint64_t suppressed_of(const SeamRun& seam, pid_t pid) {
  uint64_t n = 0;
  std::string from = " from pid " + std::to_string(pid) + " ";
  for (const auto& notice : seam.notices("suppressed"))
    if (notice.value("rule", "") == "limited_sync" &&
        notice.value("message", "").find(from) != std::string::npos)
      n += notice.value("count", uint64_t{0});
  return n;
}

TEST(LimitPerProcess, EachProcessGetsItsOwnAlertsAndSuppressedCount) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("limit.seam",
                                "use cuda\n"
                                "rule limited_sync on cuda.stream_sync alert info \"sync {duration}\"\n"
                                "    limit 2 per 1m per process\n");
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child a({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "9", "100"});
  Child b({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "5", "100"});
  ASSERT_TRUE(a.wait_for_line("ready", std::chrono::seconds(10)));
  ASSERT_TRUE(b.wait_for_line("ready", std::chrono::seconds(10)));
  SeamRun seam(dir.path(), {rules});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
      << seam.stderr_text();
  a.send_line("go");  // the noisy one first: under a rule-wide limit b would get nothing
  ASSERT_TRUE(a.wait_for_line("done", std::chrono::seconds(10)));
  b.send_line("go");
  ASSERT_TRUE(b.wait_for_line("done", std::chrono::seconds(10)));
  EXPECT_TRUE(wait_until(
      [&] {
        auto all = seam.alerts("limited_sync");
        return of_pid(all, a.pid()).size() >= 2 && of_pid(all, b.pid()).size() >= 2;
      },
      std::chrono::seconds(10)))
      << seam.stderr_text();
  // The window (1m) is still open: the held-back counts come at exit, one notice per process.
  EXPECT_EQ(seam.stop(), 0);
  auto all = seam.alerts("limited_sync");
  EXPECT_EQ(of_pid(all, a.pid()).size(), 2u);
  EXPECT_EQ(of_pid(all, b.pid()).size(), 2u);
  EXPECT_EQ(suppressed_of(seam, a.pid()), 7u);
  EXPECT_EQ(suppressed_of(seam, b.pid()), 3u);
}

}  // namespace
}  // namespace seam::test
