// Hot reload without BPF: which files a reload compiles, removes or leaves alone, the debounce
// of editors' write bursts, and the inotify watcher on a real folder.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "runtime/run/reload_plan.hpp"
#include "runtime/run/rules_watcher.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

using Files = std::map<std::string, std::string>;
using Paths = std::vector<std::string>;

TEST(ReloadPlan, UnchangedFilesAreNotRecompiled) {
  ReloadPlan p = plan_reload({{"a.seam", "h1"}, {"b.seam", "h2"}}, {}, {{"a.seam", "h1"}, {"b.seam", "h2"}});
  EXPECT_EQ(p.compile, Paths{});
  EXPECT_EQ(p.remove, Paths{});
  EXPECT_EQ(p.unchanged, (Paths{"a.seam", "b.seam"}));
}

TEST(ReloadPlan, ChangedAndNewFilesCompileGoneFilesAreRemoved) {
  ReloadPlan p = plan_reload({{"a.seam", "h1"}, {"b.seam", "h2"}, {"c.seam", "h3"}}, {},
                             {{"a.seam", "h1"}, {"b.seam", "h2-edited"}, {"d.seam", "h4"}});
  EXPECT_EQ(p.compile, (Paths{"b.seam", "d.seam"}));
  EXPECT_EQ(p.remove, Paths{"c.seam"});
  EXPECT_EQ(p.unchanged, Paths{"a.seam"});
}

// Out of descriptors, a rules folder cannot be listed: its running files are unknown, not gone
// (issue 13: "1 removed" detached every rule).
TEST(ReloadPlan, RunningFilesOfAFolderThatCannotBeListedKeepRunning) {
  Files running{{"/r/a.seam", "h1"}, {"/other/b.seam", "h2"}};
  Files on_disk;
  keep_unlisted(running, {"/r"}, on_disk);
  ReloadPlan p = plan_reload(running, {}, on_disk);
  EXPECT_EQ(p.remove, Paths{"/other/b.seam"});
  EXPECT_EQ(p.unchanged, Paths{"/r/a.seam"});
  EXPECT_EQ(p.compile, Paths{});
}

// A FIFO (open would block) and a link to /dev/zero (read would never end) planted among the
// rule files are not read: no hash, and the call returns.
TEST(ReloadPlan, OnlyRegularFilesAreHashed) {
  test::TempDir dir;
  std::string good = dir.write("rules/a.seam", "rule x on y alert info \"z\"\n");
  ASSERT_EQ(mkfifo((dir.path() + "/rules/fifo.seam").c_str(), 0644), 0);
  ASSERT_EQ(symlink("/dev/zero", (dir.path() + "/rules/zero.seam").c_str()), 0);
  std::vector<std::string> unlisted;
  Files hashes = hash_rule_files({dir.path() + "/rules"}, &unlisted);
  EXPECT_TRUE(unlisted.empty());
  ASSERT_EQ(hashes.size(), 3u);
  EXPECT_FALSE(hashes[good].empty());
  EXPECT_EQ(hashes[dir.path() + "/rules/fifo.seam"], "");
  EXPECT_EQ(hashes[dir.path() + "/rules/zero.seam"], "");
}

TEST(ReloadPlan, ABrokenTextIsNotRetriedUntilItChanges) {
  Files running{{"a.seam", "good"}};
  Files failed{{"a.seam", "broken"}};
  EXPECT_EQ(plan_reload(running, failed, {{"a.seam", "broken"}}).compile, Paths{});
  EXPECT_EQ(plan_reload(running, failed, {{"a.seam", "fixed"}}).compile, Paths{"a.seam"});
  // Back to the running text: nothing to build.
  EXPECT_EQ(plan_reload(running, failed, {{"a.seam", "good"}}).compile, Paths{});
  // A new file that failed is not running, and is not retried either.
  EXPECT_EQ(plan_reload({}, {{"n.seam", "bad"}}, {{"n.seam", "bad"}}).compile, Paths{});
}

TEST(Debouncer, OneReloadPerBurstOnceItIsQuiet) {
  Debouncer d(200, 2000);
  EXPECT_FALSE(d.due(0));
  d.event(1000);
  d.event(1050);
  d.event(1100);
  EXPECT_FALSE(d.due(1250));  // 150 ms after the last event
  EXPECT_TRUE(d.due(1300));
  EXPECT_FALSE(d.due(1301));  // once
  EXPECT_FALSE(d.pending());
}

TEST(Debouncer, AnEndlessBurstStillReloadsAfterMaxMs) {
  Debouncer d(200, 2000);
  int64_t t = 0;
  bool fired = false;
  for (; t <= 3000 && !fired; t += 100) {
    d.event(t);
    fired = d.due(t);
  }
  EXPECT_TRUE(fired);
  EXPECT_EQ(t, 2100);  // fired at t = 2000
}

TEST(RuleFiles, DirectoriesRecursivelySortedFilesAsGiven) {
  test::TempDir dir;
  dir.write("b.seam", "use cuda\n");
  dir.write("a.seam", "use cuda\n");
  dir.write("sub/c.seam", "use cuda\n");
  dir.write("notes.txt", "x");
  EXPECT_EQ(rule_files({dir.path(), dir.path() + "/missing.seam"}),
            (Paths{dir.path() + "/a.seam", dir.path() + "/b.seam", dir.path() + "/sub/c.seam",
                   dir.path() + "/missing.seam"}));
  Files hashes = hash_rule_files({dir.path()});
  ASSERT_EQ(hashes.size(), 3u);
  EXPECT_EQ(hashes[dir.path() + "/a.seam"], hashes[dir.path() + "/b.seam"]);  // same text
  dir.write("b.seam", "use python\n");
  EXPECT_NE(hash_rule_files({dir.path()})[dir.path() + "/b.seam"], hashes[dir.path() + "/b.seam"]);
}

TEST(RuleFiles, AFileReachedTwiceIsOneFile) {
  test::TempDir dir;
  dir.write("malloc.seam", "use cuda\n");
  dir.write("sub/other.seam", "use cuda\n");
  std::filesystem::create_symlink(dir.path() + "/malloc.seam", dir.path() + "/sub/link.seam");
  EXPECT_EQ(rule_files({dir.path(), dir.path() + "/./malloc.seam", dir.path() + "/sub/../sub/other.seam"}),
            (Paths{dir.path() + "/malloc.seam", dir.path() + "/sub/other.seam"}));
  EXPECT_EQ(rule_files({dir.path() + "/missing.seam", dir.path() + "/./missing.seam"}),
            Paths{dir.path() + "/missing.seam"});
  EXPECT_EQ(hash_rule_files({dir.path(), dir.path() + "/./malloc.seam"}).size(), 2u);
}

int64_t monotonic_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// Polls the watcher until it asks for a reload; how many times it did within `ms`.
int reloads_within(RulesWatcher& w, int ms) {
  int n = 0;
  test::wait_until(
      [&] {
        n += w.poll(monotonic_ms()) ? 1 : 0;
        return false;
      },
      std::chrono::milliseconds(ms));
  return n;
}

TEST(RulesWatcher, AnEditRenameOverNewFileAndDeleteEachReloadOnce) {
  test::TempDir dir;
  std::string rule = dir.write("rules/a.seam", "use cuda\n");
  RulesWatcher w({dir.path() + "/rules"}, 50, 1000);
  ASSERT_TRUE(w.ok()) << w.error();
  EXPECT_EQ(reloads_within(w, 150), 0);

  dir.write("rules/a.seam", "use cuda\n# edited\n");  // truncate + write + close: one burst
  EXPECT_EQ(reloads_within(w, 400), 1);

  // sed -i / vim: a temporary file renamed over the rule file.
  std::string tmp = dir.write("rules/.a.seam.tmp123", "use cuda\n# renamed over\n");
  ASSERT_EQ(std::rename(tmp.c_str(), rule.c_str()), 0);
  EXPECT_EQ(reloads_within(w, 400), 1);

  dir.write("rules/swapfile.swp", "not a rule");  // editors' other files do not reload
  EXPECT_EQ(reloads_within(w, 300), 0);

  dir.write("rules/sub/b.seam", "use cuda\n");  // a new folder below, then a file in it
  EXPECT_GE(reloads_within(w, 400), 1);
  dir.write("rules/sub/b.seam", "use cuda\n# again\n");
  EXPECT_EQ(reloads_within(w, 400), 1);

  std::filesystem::remove(rule);
  EXPECT_EQ(reloads_within(w, 400), 1);
}

TEST(RulesWatcher, AFilePathIsWatchedThroughItsFolder) {
  test::TempDir dir;
  std::string rule = dir.write("one.seam", "use cuda\n");
  RulesWatcher w({rule}, 50, 1000);
  ASSERT_TRUE(w.ok()) << w.error();
  dir.write("one.seam", "use cuda\n# edited\n");
  EXPECT_EQ(reloads_within(w, 400), 1);
}

}  // namespace
}  // namespace seam::runtime
