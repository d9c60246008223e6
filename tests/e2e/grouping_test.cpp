// `group within D` under `seam run`: N identical calls (same process, same stack) are written
// once at once, then reported by one summary with count N when the window ends; another process
// is another group.
#include <gtest/gtest.h>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

TEST(Grouping, IdenticalCallsBecomeOneAlertWithACountPerProcess) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("group.seam",
                                "use cuda\n"
                                "rule grouped_sync on cuda.stream_sync alert info \"sync {duration}\"\n"
                                "    with ustack group within 3s\n");
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child a({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "7", "100"});
  Child b({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "4", "100"});
  ASSERT_TRUE(a.wait_for_line("ready", std::chrono::seconds(10)));
  ASSERT_TRUE(b.wait_for_line("ready", std::chrono::seconds(10)));
  SeamRun seam(dir.path(), {rules});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
      << seam.stderr_text();
  a.send_line("go");
  b.send_line("go");
  ASSERT_TRUE(a.wait_for_line("done", std::chrono::seconds(10)));
  ASSERT_TRUE(b.wait_for_line("done", std::chrono::seconds(10)));
  // The first of each group at once, the summaries once the 3 s window has ended (not at exit).
  EXPECT_TRUE(wait_until(
      [&] {
        auto all = seam.alerts("grouped_sync");
        return of_pid(all, a.pid()).size() >= 2 && of_pid(all, b.pid()).size() >= 2;
      },
      std::chrono::seconds(10)))
      << seam.stderr_text();
  EXPECT_TRUE(seam.running());
  auto all = seam.alerts("grouped_sync");
  for (auto [pid, calls] : {std::pair<pid_t, int>{a.pid(), 7}, {b.pid(), 4}}) {
    auto mine = of_pid(all, pid);
    ASSERT_EQ(mine.size(), 2u) << pid;
    EXPECT_EQ(mine[0].value("count", 0), 1);
    EXPECT_EQ(mine[1].value("count", 0), calls);
    EXPECT_EQ(mine[1]["ustack"], mine[0]["ustack"]);
  }
  EXPECT_EQ(seam.stop(), 0);
  EXPECT_EQ(of_pid(seam.alerts("grouped_sync"), a.pid()).size(), 2u);  // nothing more at exit
}

}  // namespace
}  // namespace seam::test
