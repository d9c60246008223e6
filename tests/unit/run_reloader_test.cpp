// The reload decisions of `seam run`, with the file system replaced by a map (a fake HashFiles):
// a changed, new or removed file is a change (the whole set is built again), a broken edit keeps
// the old unit and is not retried until a file changes, an unreadable file is never taken for
// removed, a file reached twice is one file.
#include <gtest/gtest.h>

#include <fstream>

#include "compiler/build/content_hash.hpp"
#include "runtime/run/reload_plan.hpp"
#include "runtime/run/reloader.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

// A folder of rule files as the reloader sees it: path -> hash ("" unreadable).
struct FakeDisk {
  std::map<std::string, std::string> files;
  std::vector<std::string> unlisted;
  HashFiles hasher() {
    return [this](const std::vector<std::string>&, std::vector<std::string>* out) {
      if (out) *out = unlisted;
      return files;
    };
  }
};

TEST(Reloader, AChangedFileIsRebuiltAndTheOthersAreNot) {
  FakeDisk disk;
  disk.files = {{"r/a.seam", "a1"}, {"r/b.seam", "b1"}};
  Reloader reloader({"r"}, disk.hasher());
  std::map<std::string, std::string> running = {{"r/a.seam", "a1"}, {"r/b.seam", "b1"}};
  EXPECT_TRUE(reloader.decide(running).compile.empty());
  disk.files["r/a.seam"] = "a2";
  disk.files["r/c.seam"] = "c1";
  ReloadDecision d = reloader.decide(running);
  EXPECT_EQ(d.compile, (std::vector<std::string>{"r/a.seam", "r/c.seam"}));
  EXPECT_TRUE(d.remove.empty());
  EXPECT_EQ(d.unchanged, 1u);
}

TEST(Reloader, ABrokenEditKeepsTheOldUnitAndIsNotRetriedUntilItChanges) {
  FakeDisk disk;
  disk.files = {{"r/a.seam", "broken"}};
  Reloader reloader({"r"}, disk.hasher());
  std::map<std::string, std::string> running = {{"r/a.seam", "good"}};
  ASSERT_EQ(reloader.decide(running).compile, std::vector<std::string>{"r/a.seam"});
  reloader.failed(reloader.decide(running), reloader.on_disk());  // the build failed: the unit stays
  ReloadDecision again = reloader.decide(running);
  EXPECT_TRUE(again.compile.empty());
  EXPECT_TRUE(again.remove.empty()) << "a broken edit removed the running unit";
  EXPECT_EQ(again.unchanged, 1u);
  disk.files["r/a.seam"] = "fixed";
  EXPECT_EQ(reloader.decide(running).compile, std::vector<std::string>{"r/a.seam"});
  // Put back as it runs: no longer broken, nothing to do.
  reloader.failed(reloader.decide(running), reloader.on_disk());
  disk.files["r/a.seam"] = "good";
  EXPECT_TRUE(reloader.decide(running).compile.empty());
  EXPECT_TRUE(reloader.failed_files().empty());
}

TEST(Reloader, AnUnreadableFileIsNeverRemoved) {
  FakeDisk disk;
  disk.files = {{"r/a.seam", ""}};  // there, but cannot be read (permissions, a failing disk)
  Reloader reloader({"r"}, disk.hasher());
  std::map<std::string, std::string> running = {{"r/a.seam", "a1"}};
  ReloadDecision d = reloader.decide(running);
  EXPECT_TRUE(d.remove.empty());
  EXPECT_EQ(d.compile, std::vector<std::string>{"r/a.seam"});  // its compile reports why
  reloader.failed(d, reloader.on_disk());
  EXPECT_TRUE(reloader.decide(running).remove.empty());
  // A folder that could not be listed whole: its running files are unknown, not gone.
  disk.files.clear();
  disk.unlisted = {"r"};
  ReloadDecision unlisted = reloader.decide(running);
  EXPECT_TRUE(unlisted.remove.empty());
  EXPECT_EQ(unlisted.unlisted, std::vector<std::string>{"r"});
  // Really gone: removed, and its failure forgotten.
  disk.unlisted.clear();
  EXPECT_EQ(reloader.decide(running).remove, std::vector<std::string>{"r/a.seam"});
  EXPECT_TRUE(reloader.failed_files().empty());
}

// Every file is in one unit: a removal is a change too, and one that failed to build (another
// file routed to an output the removed one declared) is not tried again until a file changes.
TEST(Reloader, ARemovedFileIsAChangeAndAFailedRemovalWaitsForTheNextChange) {
  FakeDisk disk;
  disk.files = {{"r/a.seam", "a1"}};
  Reloader reloader({"r"}, disk.hasher());
  std::map<std::string, std::string> running = {{"r/a.seam", "a1"}, {"r/b.seam", "b1"}};
  ReloadDecision d = reloader.decide(running);
  EXPECT_TRUE(d.changed());
  EXPECT_EQ(d.remove, std::vector<std::string>{"r/b.seam"});
  EXPECT_EQ(d.files, 1u);
  reloader.failed(d, reloader.on_disk());
  EXPECT_FALSE(reloader.decide(running).changed());
  disk.files["r/a.seam"] = "a2";
  ReloadDecision next = reloader.decide(running);
  EXPECT_EQ(next.compile, std::vector<std::string>{"r/a.seam"});
  EXPECT_TRUE(next.remove.empty()) << "the failed removal came back before b.seam did";
  // b.seam back as it runs, then gone again: a removal to try once more.
  disk.files["r/b.seam"] = "b1";
  EXPECT_TRUE(reloader.decide(running).remove.empty());
  disk.files.erase("r/b.seam");
  EXPECT_EQ(reloader.decide(running).remove, std::vector<std::string>{"r/b.seam"});
  reloader.started();
  EXPECT_TRUE(reloader.failed_files().empty());
}

// With the real file system: `r` and `r/./a.seam` name one file, which is one unit.
TEST(Reloader, AFileReachedTwiceIsOneUnit) {
  test::TempDir dir;
  std::string a = dir.write("a.seam", "use cuda\n");
  Reloader reloader({dir.path(), dir.path() + "/./a.seam"}, {});
  ReloadDecision d = reloader.decide({});
  EXPECT_EQ(d.compile, std::vector<std::string>{a});
  std::map<std::string, std::string> running = {{a, build::ContentHash().add("use cuda\n").hex()}};
  EXPECT_TRUE(reloader.decide(running).compile.empty());
  std::ofstream(a, std::ios::app) << "\n";
  EXPECT_EQ(reloader.decide(running).compile, std::vector<std::string>{a});
}

}  // namespace
}  // namespace seam::runtime
