// The ring budget with stack copies: a rule that records `with ustack` (each record carries the
// 8 KiB copy of the stack's top) on every call, a small ring asked for (the compiler grows it to
// hold 64 such records) and a flood of calls while seam is stopped (SIGSTOP), so that user space
// cannot unwind them as they come: a running seam kept up with 20,000 calls on CI's machine.
// Records that do not fit are counted per rule and reported: every call is an alert or a counted
// drop.
#include <gtest/gtest.h>

#include <csignal>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

TEST(FloodStackCopy, EveryRecordWithAStackCopyIsDeliveredOrCountedAsDropped) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules =
      dir.write("flood.seam", "use cuda\nrule every_sync on cuda.stream_sync alert info \"s\" with ustack\n");
  std::string fixtures = SEAM_FIXTURE_DIR;
  const int calls = 20000;
  Child caller({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", std::to_string(calls), "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  const pid_t pid = caller.pid();
  SeamRun seam(dir.path(), {rules, "--ringbuf-size", "4", "--pid", std::to_string(pid)});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
      << seam.stderr_text();
  ASSERT_TRUE(stop_process(seam.pid(), std::chrono::seconds(10)));
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(120)));
  seam.signal(SIGCONT);
  auto dropped = [&] {
    uint64_t n = 0;
    for (const nlohmann::json& d : seam.notices("drops")) n += d.value("count", 0ull);
    return n;
  };
  // Drops are reported once a second; wait until delivered + dropped accounts for every call.
  EXPECT_TRUE(
      wait_until([&] { return seam.alerts("every_sync").size() + dropped() >= static_cast<uint64_t>(calls); },
                 std::chrono::seconds(60)));
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  for (const nlohmann::json& d : seam.notices("drops"))
    EXPECT_EQ(d.value("rule", ""), "every_sync") << d.dump();
  std::vector<nlohmann::json> alerts = seam.alerts("every_sync");
  EXPECT_GT(dropped(), 0u) << "a ring of about a hundred 9 KiB records cannot hold the flood";
  EXPECT_GT(alerts.size(), 64u) << "the ring holds 64 records with their stack copies at least";
  EXPECT_EQ(alerts.size() + dropped(), static_cast<uint64_t>(calls));
  // The records that were delivered carry their stacks: the copy was not cut to make room.
  for (size_t i = 0; i < alerts.size(); i += alerts.size() / 8 + 1) {
    ASSERT_TRUE(alerts[i].contains("ustack")) << alerts[i].dump();
    bool fixture = false;
    for (const nlohmann::json& f : alerts[i]["ustack"])
      fixture |= f.value("function", "") == "cudaStreamSynchronize";
    EXPECT_TRUE(fixture) << alerts[i].dump();
  }
}

}  // namespace
}  // namespace seam::test
