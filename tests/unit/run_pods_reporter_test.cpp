// A pod list that cannot be read is reported once (not per alert), and its recovery once.
#include <gtest/gtest.h>

#include "runtime/run/pods_reporter.hpp"

namespace seam::runtime {
namespace {

TEST(PodsReporter, FailureOnceThenNothingUntilItWorks) {
  PodDirectoryOptions o;
  o.url = "http://127.0.0.1:1/pods";  // nothing listens on port 1
  o.min_refetch = std::chrono::milliseconds(0);
  auto pods = std::make_shared<PodDirectory>(o);
  PodsReporter reporter(pods, o.url);
  EXPECT_FALSE(reporter.check());  // nothing fetched yet: nothing to say
  EXPECT_FALSE(pods->lookup("uid"));
  auto n = reporter.check();
  ASSERT_TRUE(n);
  EXPECT_EQ(n->kind, "pods-unavailable");
  EXPECT_NE(n->message.find("cannot read the pod list from http://127.0.0.1:1/pods: "), std::string::npos)
      << n->message;
  EXPECT_FALSE(pods->lookup("uid"));
  EXPECT_FALSE(reporter.check());
  EXPECT_FALSE(reporter.check());
}

TEST(PodsReporter, NoDirectoryNoNotices) {
  PodsReporter reporter(nullptr, "");
  EXPECT_FALSE(reporter.check());
}

}  // namespace
}  // namespace seam::runtime
