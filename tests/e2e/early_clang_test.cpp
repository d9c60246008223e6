// seam run starts clang before it reads its rules when no start of these rule files, as they are
// now, found its object (compiler/build/start_record.hpp, clang_prestart.hpp): a cold start builds
// with that clang, a start whose files are as recorded starts none, and one whose files were
// touched (the same text) finds its object in the cache all the same and is recorded anew; one
// with other flags that change the C starts it early again.
#include <gtest/gtest.h>
#include <unistd.h>
#include <utime.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/build/clang_runner.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam {
namespace {

// The lines of the wrapper's log: one per clang started.
std::vector<std::string> clang_starts(const std::string& log) {
  std::ifstream in(log);
  std::vector<std::string> runs;
  for (std::string line; std::getline(in, line);) runs.push_back(line);
  return runs;
}

size_t cache_objects(const std::string& cache) {
  size_t objects = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cache))
    objects += entry.path().extension() == ".o";
  return objects;
}

// The cache's one start record (its files' state when it was written).
std::string start_record_text(const std::string& cache) {
  std::string text;
  for (const auto& entry : std::filesystem::directory_iterator(cache))
    if (entry.path().extension() == ".record") text += test::read_file(entry.path().string());
  return text;
}

// One start until ready, then stopped, with its output files in a directory of its own under
// `dir`; false (with seam's words) when it was not ready.
::testing::AssertionResult start_and_stop(const std::string& dir, const std::string& rules,
                                          const std::vector<std::string>& flags = {}) {
  static int runs = 0;
  std::string own = dir + "/run" + std::to_string(++runs);
  std::filesystem::create_directories(own);
  std::vector<std::string> args = {rules, "--listen", "off"};
  args.insert(args.end(), flags.begin(), flags.end());
  test::SeamRun seam(own, args);
  if (!seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
    return ::testing::AssertionFailure() << seam.stderr_text();
  if (int code = seam.stop(); code != 0) return ::testing::AssertionFailure() << "exit " << code;
  return ::testing::AssertionSuccess();
}

// One rule file, clang behind a wrapper that logs each start, and a cache of the test's own (the
// environment seam is started with, unset when the test ends).
class EarlyClang : public ::testing::Test {
 protected:
  void SetUp() override {
    SEAM_REQUIRE_ROOT();
    const std::string clang = build::find_clang();
    ASSERT_FALSE(clang.empty());
    std::string wrapper = test::write_logging_clang(dir, clang, log);
    setenv("SEAM_CLANG", wrapper.c_str(), 1);
    setenv("SEAM_CACHE_DIR", cache.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("SEAM_CLANG");
    unsetenv("SEAM_CACHE_DIR");
  }
  test::TempDir dir;
  const std::string log = dir.path() + "/clang-starts";
  const std::string cache = dir.path() + "/cache";
  const std::string rules =
      dir.write("one.seam", "use cuda\nrule sync on cuda.stream_sync alert info \"s\"\n");
};

TEST_F(EarlyClang, AColdStartBuildsWithItAndAStartOfUnchangedFilesStartsNone) {
  EXPECT_TRUE(start_and_stop(dir.path(), rules));  // cold: built by the clang started first thing
  EXPECT_EQ(clang_starts(log).size(), 1u);
  EXPECT_TRUE(start_and_stop(dir.path(), rules));  // as recorded: no clang at all
  EXPECT_EQ(clang_starts(log).size(), 1u) << "a start of unchanged files started clang";

  // The touched start's clang is killed at the cache hit, maybe before its wrapper logged it: at
  // most one more line, and none at the next start.
  struct utimbuf touched {
    2000000, 2000000
  };
  ASSERT_EQ(utime(rules.c_str(), &touched), 0);
  EXPECT_TRUE(start_and_stop(dir.path(), rules));
  size_t after_touch = clang_starts(log).size();
  EXPECT_LE(after_touch, 2u);
  EXPECT_TRUE(start_and_stop(dir.path(), rules));
  EXPECT_EQ(clang_starts(log).size(), after_touch) << "the touched file was not recorded";
  EXPECT_EQ(cache_objects(cache), 1u) << "one object for the one program: the touched start built none";
}

// The command line's part of the C is part of the record: after a recorded start, one with --pid
// (a test in every program) builds an object of its own, and is recorded anew; the next start with
// that --pid, or with another one, starts no clang at all.
TEST_F(EarlyClang, AStartWithPidIsRecordedApart) {
  EXPECT_TRUE(start_and_stop(dir.path(), rules));
  std::string before = start_record_text(cache);
  EXPECT_FALSE(before.empty());

  const std::vector<std::string> pid = {"--pid", std::to_string(getpid())};
  EXPECT_TRUE(start_and_stop(dir.path(), rules, pid));
  EXPECT_EQ(cache_objects(cache), 2u) << "the --pid start built no object of its own";
  EXPECT_NE(start_record_text(cache), before) << "the --pid start was taken for the recorded one";
  size_t starts = clang_starts(log).size();
  EXPECT_TRUE(start_and_stop(dir.path(), rules, pid));
  EXPECT_EQ(clang_starts(log).size(), starts) << "a start as recorded started clang";
  // Another process: its pid is a constant set at load (plan::Plan::target_tgid), not in the C.
  EXPECT_TRUE(start_and_stop(dir.path(), rules, {"--pid", std::to_string(getppid())}));
  EXPECT_EQ(clang_starts(log).size(), starts) << "a start for another pid started clang";
  EXPECT_EQ(cache_objects(cache), 2u) << "a start for another pid built an object";
}

// -e text with -c: the text is written to a new private directory and the command runs in a new
// cgroup at every run, yet neither is in the C (<command-line-1>, seam_target_cgroup): the second
// run of the same one-liner finds the first one's object and starts no clang.
TEST_F(EarlyClang, TheSameOneLinerWithACommandIsBuiltOnce) {
  auto one_liner = [] {
    return test::run_command(
        {SEAM_EXE, "run", "-e", "cuda.stream_sync -> alert info \"s\"", "-c", "true", "--listen", "off"});
  };
  test::CommandResult first = one_liner();
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_NE(first.err.find("probes attached"), std::string::npos) << first.err;
  EXPECT_EQ(cache_objects(cache), 1u);
  size_t starts = clang_starts(log).size();
  EXPECT_GE(starts, 1u);
  test::CommandResult second = one_liner();
  ASSERT_EQ(second.exit_code, 0) << second.err;
  ASSERT_NE(second.err.find("probes attached"), std::string::npos) << second.err;
  EXPECT_EQ(cache_objects(cache), 1u) << "the second run built an object of its own";
  EXPECT_EQ(clang_starts(log).size(), starts) << "the second run started clang";
}

}  // namespace
}  // namespace seam
