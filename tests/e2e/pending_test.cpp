// `where pending > D`: a call that has not returned after D is reported while it still hangs
// (an NCCL collective that never returns never reaches its return probe), once per call.
#include <gtest/gtest.h>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

TEST(Pending, ACallStillInFlightPastTheBoundIsReportedOnceWhileItHangs) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("hang.seam",
                                "use cuda\n"
                                "rule sync_hang on cuda.stream_sync where pending > 1s\n"
                                "    alert critical \"cudaStreamSynchronize in flight for {duration}\"\n");
  std::string fixtures = SEAM_FIXTURE_DIR;
  // One quick call, then one that blocks for 4 s.
  Child quick({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "1", "1000"});
  Child hung({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "1", "4000000"});
  ASSERT_TRUE(quick.wait_for_line("ready", std::chrono::seconds(10)));
  ASSERT_TRUE(hung.wait_for_line("ready", std::chrono::seconds(10)));
  SeamRun seam(dir.path(), {rules});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
      << seam.stderr_text();
  quick.send_line("go");
  hung.send_line("go");
  ASSERT_TRUE(quick.wait_for_line("done", std::chrono::seconds(10)));
  // Reported while the call still hangs: before the caller prints "done".
  ASSERT_TRUE(wait_until([&] { return !seam.alerts("sync_hang").empty(); }, std::chrono::seconds(3)))
      << seam.stderr_text();
  std::vector<nlohmann::json> alerts = seam.alerts("sync_hang");
  EXPECT_EQ(alerts[0].value("tid", 0), hung.pid());  // the quick call never hung
  EXPECT_EQ(alerts[0].value("severity", ""), "critical");
  EXPECT_GE(alerts[0]["fields"].value("duration", 0), 1'000'000'000);
  ASSERT_TRUE(hung.wait_for_line("done", std::chrono::seconds(10)));
  EXPECT_EQ(seam.stop(), 0);
  size_t from_hung = 0;
  for (const nlohmann::json& a : seam.alerts("sync_hang")) from_hung += a.value("tid", 0) == hung.pid();
  EXPECT_EQ(from_hung, 1u);  // once per call, not once per scan
}

}  // namespace
}  // namespace seam::test
