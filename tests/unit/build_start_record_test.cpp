// start_record: whether a start of these rule files, as they are now, found its object before.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <utime.h>

#include <filesystem>

#include "compiler/build/object_cache.hpp"
#include "compiler/build/start_record.hpp"
#include "support/test_support.hpp"

namespace seam::build {
namespace {

TEST(StartRecord, AStartIsRecordedUntilAFileOfItChanges) {
  test::TempDir dir;
  std::string cache = dir.path() + "/cache";
  std::vector<std::string> files = {dir.write("a.seam", "use cuda\n"), dir.write("b.seam", "use python\n")};
  StartRecord record = start_record(files);
  EXPECT_EQ(record.bytes, 9u + 11u) << "the files' size together";
  EXPECT_FALSE(recorded(cache, record)) << "no cache yet";
  keep_record(cache, record);
  EXPECT_TRUE(recorded(cache, start_record(files)));

  struct utimbuf old_times {
    1000000, 1000000
  };  // the same text, another modification time
  ASSERT_EQ(utime(files[1].c_str(), &old_times), 0);
  EXPECT_FALSE(recorded(cache, start_record(files)));
  keep_record(cache, start_record(files));
  EXPECT_TRUE(recorded(cache, start_record(files)));
  EXPECT_FALSE(recorded(cache, record)) << "one record per set of files: the newer one";

  dir.write("b.seam", "use python, cuda\n");
  EXPECT_FALSE(recorded(cache, start_record(files)));
  EXPECT_NE(start_record({files[0]}).name, start_record(files).name) << "another set of files";
}

// The stdlib's files and the command line's settings are part of what a start was: a start with
// either changed compiles other C, however unchanged its rule files are.
TEST(StartRecord, AStartWithOtherSettingsOrAChangedModuleIsNotRecorded) {
  test::TempDir dir;
  std::string cache = dir.path() + "/cache";
  std::vector<std::string> files = {dir.write("a.seam", "use cuda\n")};
  std::vector<std::string> modules = {dir.write("stdlib/cuda.seam", "module cuda\n")};
  keep_record(cache, start_record(files, modules, "pid 0\n"));
  EXPECT_TRUE(recorded(cache, start_record(files, modules, "pid 0\n")));
  EXPECT_FALSE(recorded(cache, start_record(files, modules, "pid 42\n")));
  EXPECT_EQ(start_record(files, modules, "pid 42\n").name, start_record(files, modules, "pid 0\n").name)
      << "one record per set of rule files, whatever the settings";
  EXPECT_EQ(start_record(files, modules, "").bytes, 9u) << "the rule files' size only";

  dir.write("stdlib/cuda.seam", "module cuda # changed\n");
  EXPECT_FALSE(recorded(cache, start_record(files, modules, "pid 0\n")));
}

TEST(StartRecord, ACacheOthersCanWriteHoldsNoRecord) {
  test::TempDir dir;
  std::vector<std::string> files = {dir.write("a.seam", "use cuda\n")};
  StartRecord record = start_record(files);
  keep_record(dir.path() + "/cache", record);
  ASSERT_TRUE(recorded(dir.path() + "/cache", record));
  ASSERT_EQ(chmod((dir.path() + "/cache").c_str(), 0777), 0);
  EXPECT_FALSE(recorded(dir.path() + "/cache", record));
  EXPECT_EQ(ObjectCache(dir.path() + "/cache").read_record(record.name), "");
}

}  // namespace
}  // namespace seam::build
