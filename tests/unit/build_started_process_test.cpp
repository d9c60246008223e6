// StartedProcess: a child started before its input exists (clang starting beside the kernel
// types dump, compiler/build/build_object.cpp), finished later with one write to its stdin; and
// RenameWatch, which tells the build that clang's object is in place before clang has exited.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "compiler/build/clang_runner.hpp"
#include "compiler/build/rename_watch.hpp"
#include "support/test_support.hpp"

namespace seam::build {
namespace {

TEST(StartedProcess, RunsBeforeItsInputIsWrittenAndThenReadsIt) {
  test::TempDir dir;
  const std::string started = dir.path() + "/started";
  StartedProcess child({"/bin/sh", "-c", "touch " + started + "; cat; echo done"}, {});
  ASSERT_TRUE(test::wait_until([&] { return std::filesystem::exists(started); }, std::chrono::seconds(10)))
      << "the child did not run before finish()";
  ProcessResult r = child.finish("#include \"x.c\"\n", 10000);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.output, "#include \"x.c\"\ndone\n");
}

TEST(StartedProcess, AnUnfinishedChildIsKilledAndReaped) {
  test::TempDir dir;
  const std::string pid_file = dir.path() + "/pid";
  pid_t pid = -1;
  {
    StartedProcess child({"/bin/sh", "-c", "echo $$ > " + pid_file + "; exec cat"}, {});
    ASSERT_TRUE(test::wait_until(
        [&] {
          std::ifstream in(pid_file);
          return static_cast<bool>(in >> pid);
        },
        std::chrono::seconds(10)));
  }  // no finish(): a build that failed before its input was ready (no BTF, say)
  EXPECT_NE(kill(pid, 0), 0) << "pid " << pid << " is still there (or a zombie)";
}

TEST(StartedProcess, AChildThatExitedBeforeItsInputCostsNoSigpipe) {
  test::TempDir dir;
  const std::string gone = dir.path() + "/gone";
  StartedProcess child({"/bin/sh", "-c", "exec 0<&-; touch " + gone + "; exit 3"}, {});
  ASSERT_TRUE(test::wait_until([&] { return std::filesystem::exists(gone); }, std::chrono::seconds(10)));
  // The default action of SIGPIPE would end this test's process.
  struct sigaction dflt {
  }, old{};
  dflt.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &dflt, &old);
  ProcessResult r = child.finish("input nobody reads\n", 10000);
  sigaction(SIGPIPE, &old, nullptr);
  EXPECT_EQ(r.exit_code, 3);
}

TEST(StartedProcess, APastDeadlineIsATimeoutAndTheChildIsKilled) {
  StartedProcess child({"/bin/sh", "-c", "cat; exec sleep 30"}, {});
  ProcessResult r = child.finish("x", 200);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + SIGKILL);
}

// A child whose work is done before it exits (clang after renaming its object): what it wrote so
// far comes back at once, and the child, still running, is reaped when it ends: no zombie.
TEST(StartedProcess, AChildLeftToExitGivesItsOutputAtOnceAndIsReapedWhenItEnds) {
  test::TempDir dir;
  const std::string done = dir.path() + "/done", pid_file = dir.path() + "/pid";
  StartedProcess child(
      {"/bin/sh", "-c", "echo $$ > " + pid_file + "; cat; echo written; touch " + done + "; exec sleep 0.3"},
      {});
  child.send("input\n");
  ASSERT_TRUE(test::wait_until([&] { return std::filesystem::exists(done); }, std::chrono::seconds(10)));
  ASSERT_TRUE(test::wait_until(
      [&] {
        pollfd p{child.output_fd(), POLLIN, 0};
        return poll(&p, 1, 0) > 0;
      },
      std::chrono::seconds(10)));
  const auto before = std::chrono::steady_clock::now();
  ProcessResult r = child.leave_to_exit();
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(250))
      << "waited for the exit";
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output, "input\nwritten\n");
  EXPECT_EQ(child.output_fd(), -1);
  pid_t pid = -1;
  std::ifstream(pid_file) >> pid;
  ASSERT_GT(pid, 0);
  EXPECT_EQ(kill(pid, 0), 0) << "still running when left";
  // Reaped by the thread that waits for it: gone from the process table, not a zombie.
  EXPECT_TRUE(test::wait_until([&] { return kill(pid, 0) != 0; }, std::chrono::seconds(10)))
      << "pid " << pid << " was not reaped";
}

TEST(RenameWatch, SeesTheNamesRenamedIntoItsDirectoryOnly) {
  test::TempDir dir;
  RenameWatch watch(dir.path());
  ASSERT_GE(watch.fd(), 0);
  std::ofstream(dir.path() + "/written") << "x";  // created, not renamed: not seen
  std::ofstream(dir.path() + "/part.o.tmp") << "object";
  std::filesystem::rename(dir.path() + "/part.o.tmp", dir.path() + "/part.o");
  pollfd p{watch.fd(), POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 10000), 1);
  EXPECT_EQ(watch.renamed(), std::vector<std::string>{"part.o"});
  EXPECT_TRUE(watch.renamed().empty());
}

// Its fd is closed on a thread of its own (the close waits for the kernel): gone soon after the
// watch, never left open.
TEST(RenameWatch, ItsFdIsClosedAfterTheWatchIsGone) {
  test::TempDir dir;
  std::string fd_link;
  {
    RenameWatch watch(dir.path());
    ASSERT_GE(watch.fd(), 0);
    fd_link = "/proc/self/fd/" + std::to_string(watch.fd());
  }
  auto is_inotify = [&] {
    std::error_code ec;
    return std::filesystem::read_symlink(fd_link, ec).string() == "anon_inode:inotify";
  };
  EXPECT_TRUE(test::wait_until([&] { return !is_inotify(); }, std::chrono::seconds(10)))
      << fd_link << " is still the watch's inotify fd";
}

}  // namespace
}  // namespace seam::build
