// `scope` declarations as `seam lint` prints their diagnostics (docs/diagnostics.md: E0509,
// E0510), by exact text.
#include <gtest/gtest.h>

#include "unit/check_support.hpp"

namespace {

using seam::test::lint_files;
using seam::test::lint_text;

constexpr const char* kRule = "rule r on syscalls.futex where duration > 1ms\n    alert info \"x\"\n";

std::string with_scope(const std::string& scope) {
  return "use syscalls\n" + scope + "\n" + kRule;
}

TEST(CheckScope, EveryKindWithItsArgumentIsAccepted) {
  for (const char* scope : {"scope workload", "scope host", "scope comm \"python*\"", "scope cgroup \"/\""})
    EXPECT_EQ(lint_text(with_scope(scope)), "") << scope;
}

TEST(CheckScope, AnUnknownKindIsE0509) {
  EXPECT_EQ(lint_text(with_scope("scope pods")), "PLACEHOLDER");
}

TEST(CheckScope, AMissingOrExtraArgumentIsE0509) {
  EXPECT_EQ(lint_text(with_scope("scope cgroup")), "PLACEHOLDER");
  EXPECT_EQ(lint_text(with_scope("scope workload \"x\"")), "PLACEHOLDER");
}

TEST(CheckScope, AMalformedSelectorIsE0509) {
  EXPECT_EQ(lint_text(with_scope("scope comm \"a_name_longer_than_15\"")), "PLACEHOLDER");
  EXPECT_EQ(lint_text(with_scope("scope cgroup \"serving\"")), "PLACEHOLDER");
}

TEST(CheckScope, ASecondScopeIsE0509) {
  EXPECT_EQ(lint_text("use syscalls\nscope workload\nscope host\n" + std::string(kRule)), "PLACEHOLDER");
}

TEST(CheckScope, ACgroupThatDoesNotExistIsE0510) {
  EXPECT_EQ(lint_text(with_scope("scope cgroup \"/no/such/cgroup/here\"")), "PLACEHOLDER");
}

}  // namespace
