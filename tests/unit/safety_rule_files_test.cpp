// Which rule files seam refuses to load: temp files and directories given every owner and mode
// that matters, with the exact message for each refusal. chown needs root; under CI=true these
// tests must run.
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "runtime/safety/rule_file_safety.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

#define REQUIRE_ROOT_FOR_CHOWN()                                                       \
  do {                                                                                 \
    if (!test::is_root()) {                                                            \
      if (test::in_ci()) FAIL() << "rule file safety tests must run as root under CI"; \
      GTEST_SKIP() << "needs root (chown)";                                            \
    }                                                                                  \
  } while (0)

constexpr uid_t kNobody = 65534;
constexpr gid_t kStaff = 50;  // Debian's "staff"; the message names it if the group exists

// A root-owned 0755 directory with a root-owned 0644 rule file in it, under the test's temp dir
// (itself under /tmp: sticky and world-writable, which is fine).
struct Layout {
  test::TempDir tmp;
  std::string dir = tmp.path() + "/rules";
  std::string file = tmp.write("rules/x.seam", "rule x {}\n");
  Layout() {
    chmod(tmp.path().c_str(), 0755);
    chmod(dir.c_str(), 0755);
    chmod(file.c_str(), 0644);
  }
};

TEST(SafetyRuleFiles, RootOwnedFileInRootOwnedDirectoriesIsAccepted) {
  REQUIRE_ROOT_FOR_CHOWN();
  Layout l;
  EXPECT_EQ(insecure_reason(l.file), std::nullopt);
  EXPECT_EQ(insecure_reason(l.dir), std::nullopt);
}

TEST(SafetyRuleFiles, GroupWritableFileIsRefusedWithTheGroupNamed) {
  REQUIRE_ROOT_FOR_CHOWN();
  Layout l;
  ASSERT_EQ(chown(l.file.c_str(), 0, kStaff), 0);
  ASSERT_EQ(chmod(l.file.c_str(), 0664), 0);
  auto reason = insecure_reason(l.file);
  ASSERT_TRUE(reason.has_value());
  std::string group = getgrgid(kStaff) ? "group 'staff'" : "group 50";
  EXPECT_EQ(*reason, "refusing " + l.file + ": it is writable by " + group +
                         " (mode 0664); fix with chmod go-w " + l.file + ", or pass --allow-insecure-rules");
  // Root's own group writing is root writing.
  ASSERT_EQ(chown(l.file.c_str(), 0, 0), 0);
  EXPECT_EQ(insecure_reason(l.file), std::nullopt);
}

TEST(SafetyRuleFiles, WorldWritableFileIsRefused) {
  REQUIRE_ROOT_FOR_CHOWN();
  Layout l;
  ASSERT_EQ(chmod(l.file.c_str(), 0646), 0);
  EXPECT_EQ(insecure_reason(l.file), "refusing " + l.file +
                                         ": it is writable by everyone (mode 0646); fix with chmod go-w " +
                                         l.file + ", or pass --allow-insecure-rules");
}

TEST(SafetyRuleFiles, FileOwnedByAnotherUserIsRefusedEvenIfReadOnly) {
  REQUIRE_ROOT_FOR_CHOWN();
  Layout l;
  ASSERT_EQ(chown(l.file.c_str(), kNobody, 0), 0);
  ASSERT_EQ(chmod(l.file.c_str(), 0444), 0);  // the owner can chmod it back
  EXPECT_EQ(insecure_reason(l.file),
            "refusing " + l.file + ": it is owned by user 'nobody' (uid 65534), not root; " +
                "fix with chown root " + l.file + ", or pass --allow-insecure-rules");
}

TEST(SafetyRuleFiles, AnyWritableAncestorIsRefused) {
  REQUIRE_ROOT_FOR_CHOWN();
  Layout l;
  ASSERT_EQ(chmod(l.dir.c_str(), 0777), 0);
  EXPECT_EQ(insecure_reason(l.file),
            "refusing " + l.file + ": its directory " + l.dir +
                " is writable by everyone (mode 0777, no sticky bit); fix with chmod go-w " + l.dir +
                ", or pass --allow-insecure-rules");
  ASSERT_EQ(chmod(l.dir.c_str(), 0755), 0);
  ASSERT_EQ(chmod(l.tmp.path().c_str(), 0775), 0);  // two levels up, group-writable
  ASSERT_EQ(chown(l.tmp.path().c_str(), 0, kStaff), 0);
  auto reason = insecure_reason(l.file);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("its directory " + l.tmp.path() + " is writable by group"), std::string::npos)
      << *reason;
  ASSERT_EQ(chmod(l.tmp.path().c_str(), 0755), 0);
  ASSERT_EQ(chown(l.tmp.path().c_str(), kNobody, 0), 0);  // its owner could rename rules/ away
  EXPECT_EQ(insecure_reason(l.file),
            "refusing " + l.file + ": its directory " + l.tmp.path() +
                " is owned by user 'nobody' (uid 65534), not root; fix with chown root " + l.tmp.path() +
                ", or pass --allow-insecure-rules");
  ASSERT_EQ(chown(l.tmp.path().c_str(), 0, 0), 0);
}

TEST(SafetyRuleFiles, StickyWorldWritableDirectoryIsAcceptedOnlyForRootOwnedEntries) {
  REQUIRE_ROOT_FOR_CHOWN();
  Layout l;
  ASSERT_EQ(chmod(l.dir.c_str(), 01777), 0);  // like /tmp
  EXPECT_EQ(insecure_reason(l.file), std::nullopt);
  ASSERT_EQ(chown(l.file.c_str(), kNobody, 0), 0);  // someone else's file in it
  ASSERT_TRUE(insecure_reason(l.file).has_value());
  EXPECT_NE(insecure_reason(l.file)->find("it is owned by user 'nobody'"), std::string::npos);
}

TEST(SafetyRuleFiles, SymlinksAreCheckedWhereTheyPoint) {
  REQUIRE_ROOT_FOR_CHOWN();
  Layout l;
  std::string unsafe = l.tmp.path() + "/unsafe";
  std::filesystem::create_directories(unsafe);
  ASSERT_EQ(chmod(unsafe.c_str(), 0777), 0);
  std::string target = l.tmp.write("unsafe/real.seam", "rule y {}\n");
  ASSERT_EQ(chmod(target.c_str(), 0644), 0);
  std::string link = l.dir + "/y.seam";
  std::filesystem::create_symlink(target, link);
  auto reason = insecure_reason(link);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("its directory " + unsafe + " is writable by everyone"), std::string::npos)
      << *reason;
}

TEST(SafetyRuleFiles, RelativePathsAndMissingFiles) {
  REQUIRE_ROOT_FOR_CHOWN();
  Layout l;
  std::string cwd = std::filesystem::current_path();
  std::filesystem::current_path(l.dir);
  EXPECT_EQ(insecure_reason("x.seam"), std::nullopt);
  ASSERT_EQ(chmod(l.dir.c_str(), 0777), 0);
  auto reason = insecure_reason("x.seam");
  std::filesystem::current_path(cwd);
  ASSERT_TRUE(reason.has_value());
  EXPECT_TRUE(reason->starts_with("refusing x.seam: its directory " + l.dir + " is writable by everyone"))
      << *reason;
  EXPECT_EQ(insecure_reason(l.dir + "/missing.seam"),
            "refusing " + l.dir + "/missing.seam: cannot check who may write it: No such file or directory");
}

}  // namespace
}  // namespace seam::runtime
