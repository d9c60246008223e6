// container, container_id, pod and namespace in conditions and metric labels (docs/language.md,
// "Containers and pods"), with the exact text `seam lint` prints (E0309, E0104).
#include <gtest/gtest.h>

#include "unit/check_support.hpp"

namespace {

using seam::test::lint_files;

TEST(CheckIdentity, TestsWithAConstantStringAreAccepted) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where container == "abc123def456" and pod startswith "web-"
    except namespace in ("kube-system", "monitoring")
    except container_id != "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    alert "x"
metric m on cuda.malloc where "prod" == namespace count by container, container_id, pod, namespace
)"}}),
            "");
}

TEST(CheckIdentity, AnOrderingIsE0309) {
  EXPECT_EQ(
      lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where container > "a"
    alert "x"
)"}}),
      R"(rules/a.seam:3:26: error[E0309]: 'container' can only be compared with a constant string (==, != or startswith)
    3 |     on cuda.malloc where container > "a"
      |                          ^~~~~~~~~
      = hint: e.g. `container == "web"` or `container in ("a", "b")`

1 error, 0 warnings
)");
}

TEST(CheckIdentity, ComparingWithAnotherValueIsE0309) {
  EXPECT_EQ(
      lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where namespace == comm
    alert "x"
)"}}),
      R"(rules/a.seam:3:39: error[E0309]: 'namespace' can only be compared with a constant string (==, != or startswith)
    3 |     on cuda.malloc where namespace == comm
      |                                       ^~~~
      = hint: e.g. `namespace == "prod"` or `namespace in ("a", "b")`

1 error, 0 warnings
)");
}

TEST(CheckIdentity, NotInAMessageE0503) {
  std::string out = lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc
    alert "in {pod}"
)"}});
  EXPECT_NE(out.find("error[E0503]: {pod} cannot be printed in a message\n"), std::string::npos) << out;
  EXPECT_NE(out.find("= hint: every alert carries its container and pod (container_id, pod, namespace)"),
            std::string::npos)
      << out;
}

TEST(CheckIdentity, AMisspelledNameStaysE0104WithAHint) {
  std::string out = lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where containr == "abc"
    alert "x"
)"}});
  EXPECT_NE(out.find("rules/a.seam:3:26: error[E0104]: unknown field 'containr' of cuda.malloc\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("= hint: did you mean container?"), std::string::npos) << out;
}

TEST(CheckIdentity, AnUnknownMetricLabelListsTheIdentityLabels) {
  std::string out = lint_files({{"rules/a.seam", R"(use cuda
metric m on cuda.malloc count by podname
)"}});
  EXPECT_NE(out.find("error[E0104]: unknown label 'podname'"), std::string::npos) << out;
  EXPECT_NE(out.find("`by` takes comm, cgroup, pid, tid, container, container_id, pod, namespace"),
            std::string::npos)
      << out;
}

}  // namespace
