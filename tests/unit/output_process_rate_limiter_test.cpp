// `limit N per T per process`: each process its own N alerts per window, a bounded table of
// processes with the rule-wide counter past it, and every held-back alert reported with its pid.
#include <gtest/gtest.h>

#include <map>

#include "runtime/output/process_rate_limiter.hpp"

namespace seam::runtime {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

std::map<uint32_t, uint64_t> take(ProcessRateLimiter& l, int64_t now, bool all) {
  std::map<uint32_t, uint64_t> out;
  l.take_suppressed(now, all, [&](uint32_t pid, uint64_t n) { out[pid] += n; });
  return out;
}

TEST(OutputProcessRateLimiter, TwoProcessesEachGetTheirOwnNAlerts) {
  ProcessRateLimiter l(2, 10 * kSecond, true);
  int written_a = 0, written_b = 0;
  for (int i = 0; i < 5; ++i) {  // a noisy process first: it must not use up b's alerts
    written_a += l.admit(100, i).write;
  }
  for (int i = 0; i < 4; ++i) written_b += l.admit(200, 10 + i).write;
  EXPECT_EQ(written_a, 2);
  EXPECT_EQ(written_b, 2);
  EXPECT_EQ(l.tracked(), 2u);
  EXPECT_TRUE(take(l, 10 * kSecond - 1, false).empty());  // windows still open
  // The next alert of a process carries that process's own count, not the other's.
  auto a = l.admit(100, 10 * kSecond + 1);
  EXPECT_TRUE(a.write);
  EXPECT_EQ(a.suppressed, 3u);
  EXPECT_EQ(take(l, 10 * kSecond + 20, false), (std::map<uint32_t, uint64_t>{{200, 2}}));
  EXPECT_FALSE(l.take_overflow());
}

TEST(OutputProcessRateLimiter, ProcessesPastTheCapShareTheRuleWideCounter) {
  ProcessRateLimiter l(1, 10 * kSecond, true, 2);
  EXPECT_TRUE(l.admit(1, 0).write);
  EXPECT_TRUE(l.admit(2, 1).write);
  EXPECT_FALSE(l.take_overflow());
  EXPECT_TRUE(l.admit(3, 2).write);  // past the cap: the rule-wide counter's first alert
  EXPECT_TRUE(l.take_overflow());    // said once
  EXPECT_FALSE(l.take_overflow());
  EXPECT_FALSE(l.admit(4, 3).write);  // shares it with 3
  EXPECT_FALSE(l.admit(3, 4).write);
  EXPECT_FALSE(l.admit(1, 5).write);  // tracked processes keep their own
  EXPECT_EQ(l.tracked(), 2u);
  EXPECT_EQ(take(l, 0, true), (std::map<uint32_t, uint64_t>{{0, 2}, {1, 1}}));
}

TEST(OutputProcessRateLimiter, EndedWindowsFreeTheirSlot) {
  ProcessRateLimiter l(1, kSecond, true, 1);
  EXPECT_TRUE(l.admit(1, 0).write);
  EXPECT_FALSE(l.admit(1, 1).write);
  EXPECT_EQ(take(l, kSecond, false), (std::map<uint32_t, uint64_t>{{1, 1}}));
  EXPECT_EQ(l.tracked(), 0u);
  EXPECT_TRUE(l.admit(2, kSecond + 1).write);  // the slot is free again: no fallback
  EXPECT_EQ(l.tracked(), 1u);
  EXPECT_FALSE(l.take_overflow());
}

TEST(OutputProcessRateLimiter, RuleWideWithoutPerProcessOrWithoutAPid) {
  ProcessRateLimiter wide(1, kSecond, false);
  EXPECT_TRUE(wide.admit(1, 0).write);
  EXPECT_FALSE(wide.admit(2, 1).write);  // one counter for the whole host
  EXPECT_EQ(wide.tracked(), 0u);
  ProcessRateLimiter l(1, kSecond, true);
  EXPECT_TRUE(l.admit(0, 0).write);  // no process: the rule-wide counter
  EXPECT_FALSE(l.admit(0, 1).write);
  EXPECT_TRUE(l.admit(7, 2).write);
  EXPECT_EQ(take(l, 0, true), (std::map<uint32_t, uint64_t>{{0, 1}}));
}

TEST(OutputProcessRateLimiter, NoLimitWritesEverything) {
  ProcessRateLimiter l(0, 0, true);
  for (int i = 0; i < 50; ++i) EXPECT_TRUE(l.admit(static_cast<uint32_t>(i), i).write);
  EXPECT_EQ(l.tracked(), 0u);
}

}  // namespace
}  // namespace seam::runtime
