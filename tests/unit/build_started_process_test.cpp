// StartedProcess: a child started before its input exists (clang starting beside the kernel
// types dump, compiler/build/build_object.cpp), finished later with one write to its stdin.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "compiler/build/clang_runner.hpp"
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

}  // namespace
}  // namespace seam::build
