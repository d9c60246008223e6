// A rule that matches every call, a tiny ring buffer and a flood of calls: records that do not
// fit are counted per rule and reported, every one of them, and nothing hangs. seam is stopped
// (SIGSTOP) while the caller floods, so the reader cannot drain the ring: a running seam keeps up
// with the C caller on a fast machine (100,000 calls delivered, none dropped), and pinning both to
// one CPU leaves it to the scheduler whether seam drains the ring: the flood would test nothing.
#include <gtest/gtest.h>

#include <csignal>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

TEST(Flood, EveryRecordIsDeliveredOrCountedAsDropped) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules =
      dir.write("flood.seam", "use cuda\nrule every_sync on cuda.stream_sync alert info \"s\"\n");
  std::string fixtures = SEAM_FIXTURE_DIR;
  const int calls = 100000;
  Child caller({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", std::to_string(calls), "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  // --pid: only this caller counts, whatever else on the machine calls a CUDA runtime.
  SeamRun seam(dir.path(), {rules, "--ringbuf-size", "4", "--pid", std::to_string(caller.pid())});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
      << seam.stderr_text();
  ASSERT_TRUE(stop_process(seam.pid(), std::chrono::seconds(10)));
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(120)));
  seam.signal(SIGCONT);
  // Drops are reported once a second; wait until delivered + dropped accounts for every call.
  auto accounted = [&] {
    uint64_t dropped = 0;
    for (const nlohmann::json& n : seam.notices("drops")) dropped += n.value("count", 0ull);
    return seam.alerts("every_sync").size() + dropped;
  };
  EXPECT_TRUE(
      wait_until([&] { return accounted() >= static_cast<uint64_t>(calls); }, std::chrono::seconds(10)));
  EXPECT_EQ(seam.stop(), 0);
  uint64_t dropped = 0;
  for (const nlohmann::json& n : seam.notices("drops")) {
    dropped += n.value("count", 0ull);
    EXPECT_EQ(n.value("rule", ""), "every_sync");
  }
  EXPECT_GT(dropped, 0u);  // 4 KiB holds a few dozen records: a flood cannot fit
  EXPECT_EQ(seam.alerts("every_sync").size() + dropped, static_cast<uint64_t>(calls));
}

}  // namespace
}  // namespace seam::test
