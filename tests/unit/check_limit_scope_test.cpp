// `limit N per D per process`: the scope word, windowed rules whose metric cannot tell processes
// apart, and what lowering puts in the plan. Diagnostics by exact text, as docs/diagnostics.md.
#include <gtest/gtest.h>

#include "unit/check_support.hpp"

namespace {

using seam::test::lint_files;

TEST(CheckLimitScope, PerProcessIsAcceptedOnEventAndPidSeriesRules) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert "x"
    limit 1 per 1m per process

metric launches on cuda.launch count by pid
rule w
    when rate(launches) over 10s > 100000
    alert info "{value}/s"
    limit 1 per 10m per process
)"}}),
            "");
}

TEST(CheckLimitScope, UnknownScopeIsE0502) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert "x"
    limit 1 per 1m per pid
)"}}),
            R"(rules/a.seam:5:24: error[E0502]: unknown limit scope 'pid'
    5 |     limit 1 per 1m per pid
      |                        ^~~
      = hint: a limit counts per rule (`limit 10 per 1m`) or per process (`limit 10 per 1m per process`)

1 error, 0 warnings
)");
}

TEST(CheckLimitScope, WindowedRuleWithoutPidSeriesIsW0005) {
  EXPECT_EQ(
      lint_files({{"rules/a.seam", R"(use cuda
metric launches on cuda.launch count by comm
rule w
    when rate(launches) over 10s > 100000
    alert info "{value}/s"
    limit 1 per 10m per process
)"}}),
      R"(rules/a.seam:6:25: warning[W0005]: rule 'w' limits per process, but metric 'launches' is not `by pid`; the limit stays rule-wide
    6 |     limit 1 per 10m per process
      |                         ^~~~~~~
      = hint: add pid to the metric's `by` labels, or drop `per process`

0 errors, 1 warning
)");
}

TEST(CheckLimitScope, AScopeWordIsNeeded) {
  EXPECT_NE(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert "x"
    limit 1 per 1m per
)"}}).find("error[E0001]"),
            std::string::npos);
}

}  // namespace
