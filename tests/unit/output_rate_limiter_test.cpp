// `limit N per T`: exact counts of written and held-back alerts, and the remainder reported.
#include <gtest/gtest.h>

#include "runtime/output/rate_limiter.hpp"

namespace seam::runtime {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

TEST(OutputRateLimiter, NoLimitWritesEverything) {
  RateLimiter l(0, 0);
  for (int i = 0; i < 100; ++i) {
    auto a = l.admit(i);
    EXPECT_TRUE(a.write);
    EXPECT_EQ(a.suppressed, 0u);
  }
  EXPECT_EQ(l.take_suppressed(), 0u);
}

TEST(OutputRateLimiter, WritesNPerWindowAndCarriesTheCountOnTheNextWritten) {
  RateLimiter l(2, 10 * kSecond);
  EXPECT_TRUE(l.admit(100).write);  // window [100, 100+10s)
  EXPECT_TRUE(l.admit(200).write);
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(l.admit(300 + i).write);
  EXPECT_EQ(l.pending(), 5u);
  EXPECT_EQ(l.take_suppressed_if_window_ended(10 * kSecond), 0u);  // window still open
  auto next = l.admit(100 + 10 * kSecond);                         // a new window starts here
  EXPECT_TRUE(next.write);
  EXPECT_EQ(next.suppressed, 5u);
  EXPECT_EQ(l.pending(), 0u);
  auto second = l.admit(101 + 10 * kSecond);
  EXPECT_TRUE(second.write);
  EXPECT_EQ(second.suppressed, 0u);
  EXPECT_FALSE(l.admit(102 + 10 * kSecond).write);
}

TEST(OutputRateLimiter, RemainderIsReportedOnceWhenTheWindowEnds) {
  RateLimiter l(1, kSecond);
  EXPECT_TRUE(l.admit(0).write);
  EXPECT_FALSE(l.admit(1).write);
  EXPECT_FALSE(l.admit(2).write);
  EXPECT_EQ(l.take_suppressed_if_window_ended(kSecond - 1), 0u);
  EXPECT_EQ(l.take_suppressed_if_window_ended(kSecond), 2u);
  EXPECT_EQ(l.take_suppressed_if_window_ended(kSecond), 0u);  // already reported
  auto a = l.admit(kSecond + 5);
  EXPECT_TRUE(a.write);
  EXPECT_EQ(a.suppressed, 0u);  // not reported twice
}

TEST(OutputRateLimiter, TakeSuppressedAtExitReturnsEverything) {
  RateLimiter l(3, 60 * kSecond);
  int written = 0;
  for (int i = 0; i < 1000; ++i) written += l.admit(i).write;
  EXPECT_EQ(written, 3);
  EXPECT_EQ(l.take_suppressed(), 997u);
  EXPECT_EQ(l.take_suppressed(), 0u);
}

}  // namespace
}  // namespace seam::runtime
