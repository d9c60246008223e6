// The scheduler spans are about the thread their key names, not the task a tracepoint runs in
// (compiler/codegen/subject.hpp): an off-CPU interval ends in the context of the thread leaving
// the CPU, and a wait on the run queue begins in the waker's. A Python thread sleeps kSleeps
// times; every sleep is one off-CPU interval in interruptible sleep, prev_state 1 (preemptions
// have state 0, and a major page fault's wait, under memory pressure, 2), so the counts are exact:
//  - with seam pinned to the sleeper's CPU and woken by an alert per interval, seam's own thread
//    is often the one leaving the CPU when the sleeper comes back: those intervals are kept;
//  - under --pid the interval is counted though the switch back in runs in another process;
//  - a new process's first wait on the run queue (sched_wakeup_new, never woken) is seen.
#include <gtest/gtest.h>
#include <sched.h>

#include <filesystem>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

constexpr int kSleeps = 300;

// Prints "ready", waits for a line, sleeps kSleeps times 100 us, prints "done".
std::vector<std::string> sleeper() {
  return {test_python(), "-c",
          "import sys, time\n"
          "print('ready', flush=True)\n"
          "sys.stdin.readline()\n"
          "for _ in range(" +
              std::to_string(kSleeps) +
              "):\n"
              "    time.sleep(0.0001)\n"
              "print('done', flush=True)\n"};
}

// Every thread of `pid` on CPU 0.
void pin_to_cpu0(pid_t pid) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  std::error_code ec;
  for (const auto& t : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec))
    sched_setaffinity(std::stoi(t.path().filename().string()), sizeof one, &one);
}

std::string sleeps_rules(const std::string& pid) {
  return "use sched\n"
         "metric sleeps on sched.offcpu where prev_pid == " +
         pid +
         " and prev_state == 1 count\n"
         "rule each_sleep on sched.offcpu where prev_pid == " +
         pid + " and prev_state == 1\n    alert info \"slept {duration}\"\n";
}

std::string expected_sleeps(const std::string& rules) {
  return "metric sleeps (count) from " + rules + ":2\n  (all): " + std::to_string(kSleeps) + "\n";
}

TEST(SchedSubject, AnIntervalEndingAsSeamsThreadLeavesTheCpuIsKept) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Child app(sleeper());
  ASSERT_TRUE(app.wait_for_line("ready", 10s));
  const std::string pid = std::to_string(app.pid());
  std::string rules = dir.write("s.seam", sleeps_rules(pid));
  SeamRun seam(dir.path(), {rules, "--listen", "off", "--summary"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "", 60s)) << seam.stderr_text();
  pin_to_cpu0(app.pid());
  pin_to_cpu0(seam.pid());
  app.send_line("go");
  ASSERT_TRUE(app.wait_for_line("done", 30s));
  EXPECT_EQ(app.wait(), 0);
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  EXPECT_NE(seam.stdout_text().find(expected_sleeps(rules)), std::string::npos) << seam.stdout_text();
}

TEST(SchedSubject, PidFiltersOnTheThreadOffTheCpuNotOnTheOneSwitchingIn) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Child app(sleeper());
  ASSERT_TRUE(app.wait_for_line("ready", 10s));
  const std::string pid = std::to_string(app.pid());
  std::string rules = dir.write("s.seam", sleeps_rules(pid));
  // --pid ends the run when the sleeper exits; --summary prints the metric then.
  SeamRun seam(dir.path(), {rules, "--pid", pid, "--listen", "off", "--summary"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "", 60s)) << seam.stderr_text();
  app.send_line("go");
  ASSERT_TRUE(app.wait_for_line("done", 30s));
  EXPECT_EQ(app.wait(), 0);
  ASSERT_TRUE(wait_until([&] { return seam.stdout_text().find("metric sleeps") != std::string::npos; }, 20s))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  EXPECT_NE(seam.stdout_text().find(expected_sleeps(rules)), std::string::npos) << seam.stdout_text();
}

TEST(SchedSubject, RunqSeesANewProcesssFirstWait) {
  SEAM_REQUIRE_ROOT();
  constexpr int kChildren = 20;
  TempDir dir;
  // A name of its own (forked children inherit it); each child exits at once, so its one wait on
  // the run queue is the first, from sched_wakeup_new. The parent's own waits are excluded by pid.
  const std::string name = "seamrq" + std::to_string(getpid() % 100000);
  Child app({test_python(), "-c",
             "import ctypes, os, sys\n"
             "ctypes.CDLL(None).prctl(15, b'" +
                 name +
                 "')\n"
                 "print('ready', flush=True)\n"
                 "sys.stdin.readline()\n"
                 "for _ in range(" +
                 std::to_string(kChildren) +
                 "):\n"
                 "    child = os.fork()\n"
                 "    if child == 0:\n"
                 "        os._exit(0)\n"
                 "    os.waitpid(child, 0)\n"
                 "print('done', flush=True)\n"});
  ASSERT_TRUE(app.wait_for_line("ready", 10s));
  const std::string pid = std::to_string(app.pid());
  std::string rules = dir.write("r.seam",
                                "use sched\n"
                                "metric first_waits on sched.runq where next_comm == \"" +
                                    name + "\" and pid != " + pid + " count\n");
  SeamRun seam(dir.path(), {rules, "--listen", "off", "--summary"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "", 60s)) << seam.stderr_text();
  app.send_line("go");
  ASSERT_TRUE(app.wait_for_line("done", 30s));
  EXPECT_EQ(app.wait(), 0);
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  EXPECT_NE(seam.stdout_text().find("metric first_waits (count) from " + rules +
                                    ":2\n  (all): " + std::to_string(kChildren) + "\n"),
            std::string::npos)
      << seam.stdout_text();
}

}  // namespace
}  // namespace seam::test
