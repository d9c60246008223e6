// `scope` declarations as `seam lint` prints their diagnostics (docs/diagnostics.md: E0511,
// E0512), by exact text.
#include <gtest/gtest.h>

#include "compiler/plan/cgroup_path.hpp"
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

TEST(CheckScope, AnUnknownKindIsE0511) {
  EXPECT_EQ(lint_text(with_scope("scope pods")),
            R"(rules/a.seam:2:7: error[E0511]: unknown scope 'pods'
    2 | scope pods
      |       ^~~~
      = hint: a scope is workload, host, cgroup "PATH" or comm "PATTERN"

1 error, 0 warnings
)");
}

TEST(CheckScope, AMissingOrExtraArgumentIsE0511) {
  EXPECT_EQ(lint_text(with_scope("scope cgroup")),
            R"(rules/a.seam:2:7: error[E0511]: scope cgroup needs a quoted cgroup path
    2 | scope cgroup
      |       ^~~~~~

1 error, 0 warnings
)");
  EXPECT_EQ(lint_text(with_scope("scope workload \"x\"")),
            R"(rules/a.seam:2:16: error[E0511]: scope workload takes no argument
    2 | scope workload "x"
      |                ^~~

1 error, 0 warnings
)");
}

TEST(CheckScope, AMalformedSelectorIsE0511) {
  EXPECT_EQ(
      lint_text(with_scope("scope comm \"a_name_longer_than_15\"")),
      R"(rules/a.seam:2:12: error[E0511]: comm pattern 'a_name_longer_than_15' can never match a task name (1 to 15 bytes)
    2 | scope comm "a_name_longer_than_15"
      |            ^~~~~~~~~~~~~~~~~~~~~~~

1 error, 0 warnings
)");
  EXPECT_EQ(
      lint_text(with_scope("scope cgroup \"serving\"")),
      R"(rules/a.seam:2:14: error[E0511]: cgroup path 'serving' must start with '/' (a path under the cgroup v2 mount)
    2 | scope cgroup "serving"
      |              ^~~~~~~~~

1 error, 0 warnings
)");
}

TEST(CheckScope, ASecondScopeIsE0511) {
  EXPECT_EQ(lint_text("use syscalls\nscope workload\nscope host\n" + std::string(kRule)),
            R"(rules/a.seam:3:1: error[E0511]: a rule file has one scope; this one is its second
    3 | scope host
      | ^~~~~~~~~~
      = hint: first declared at rules/a.seam:2

1 error, 0 warnings
)");
}

TEST(CheckScope, ACgroupThatDoesNotExistIsE0512) {
  // The hint names the directory looked for: under /sys/fs/cgroup/unified on a hybrid host.
  EXPECT_EQ(lint_text(with_scope("scope cgroup \"/no/such/cgroup/here\"")),
            R"(rules/a.seam:2:14: error[E0512]: no cgroup '/no/such/cgroup/here' on this host
    2 | scope cgroup "/no/such/cgroup/here"
      |              ^~~~~~~~~~~~~~~~~~~~~~
      = hint: looked for )" +
                seam::plan::cgroup_dir("/no/such/cgroup/here") + "\n\n1 error, 0 warnings\n");
}

}  // namespace
