// `seam run --pods`: flags to a pod directory, token from a file or $SEAM_PODS_TOKEN.
#include <gtest/gtest.h>

#include "cli/pods_flags.hpp"
#include "support/test_support.hpp"

namespace seam::cli {
namespace {

const char* no_env(const char*) {
  return nullptr;
}

TEST(PodsFlags, NoUrlNoDirectory) {
  auto d = pod_directory({}, no_env);
  ASSERT_TRUE(d);
  EXPECT_EQ(*d, nullptr);
  auto stray = pod_directory({"", "", true}, no_env);
  ASSERT_FALSE(stray);
  EXPECT_EQ(stray.error(), "--pods-token-file and --pods-insecure need --pods URL");
}

TEST(PodsFlags, UrlMustBeHttp) {
  auto d = pod_directory({"kubelet:10250/pods", "", false}, no_env);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error(), "--pods 'kubelet:10250/pods' must be an http:// or https:// URL");
}

TEST(PodsFlags, TokenFileMustBeReadableAndNotEmpty) {
  seam::test::TempDir dir;
  auto missing = pod_directory({"https://node:10250/pods", dir.path() + "/none", false}, no_env);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), "--pods-token-file " + dir.path() + "/none: cannot be read");
  std::string empty = dir.write("empty", "\n");
  auto e = pod_directory({"https://node:10250/pods", empty, false}, no_env);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "--pods-token-file " + empty + " is empty");
  std::string token = dir.write("token", "abc.def\n");
  EXPECT_TRUE(pod_directory({"https://node:10250/pods", token, false}, no_env));
  EXPECT_TRUE(pod_directory({"https://node:10250/pods", "", false}, [](const char* n) {
    return std::string(n) == "SEAM_PODS_TOKEN" ? "t" : nullptr;
  }));
}

}  // namespace
}  // namespace seam::cli
