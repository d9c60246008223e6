// The scheduler spans are about the thread their key names, not the task a tracepoint runs in
// (compiler/codegen/subject.hpp): an off-CPU interval ends in the context of the thread leaving
// the CPU, and a wait on the run queue begins in the waker's.
//  - With seam and a Python thread pinned to one CPU, the thread sleeps kSleeps times and seam,
//    woken by an alert per interval, is often the task leaving the CPU as the sleeper comes back:
//    its intervals are counted against the thread's own count of its waits. (With the self-filter
//    put back on the task leaving the CPU, 10-15 of 300 were lost here, at load 7-12 on two
//    cores; with the filter on the thread switched in, 0-3.)
//  - Under --pid, a Python thread sleeps kSleeps times and prints how many times it left the CPU
//    to wait (its voluntary context switches: the switches with a task state, prev_state 1..255,
//    not preemptions); seam counts those intervals though the switch back in runs in another
//    process.
//  Neither count is exact, for a reason in the kernel, not in seam: a `tracepoint` program runs
//  through trace_call_bpf(), which skips it while the CPU's bpf_prog_active is held, and a task
//  inside a bpf() map lookup or update holds it across a preemption (migration is disabled, not
//  preemption). So while seam's own thread, pinned to the sleeper's CPU, is preempted inside a
//  map syscall (its metrics and scope maps), the sleeper's switches on that CPU run no program;
//  that kernel counts no recursion miss for a skipped tracepoint program (bpftool shows none).
//  0-3 of 300 were lost so, once in 6-8 runs. raw_tracepoint and tp_btf programs have a
//  per-program guard instead; sched.offcpu on tp_btf (the task's fields read through `prev` and
//  `next`) would make the count exact (docs/stdlib.md).
//  - A new process's first wait on the run queue (sched_wakeup_new: it was never woken) is seen.
#include <gtest/gtest.h>

#include <optional>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

constexpr int kSleeps = 300;

// Prints "ready", waits for a line, sleeps kSleeps times 100 us, prints "done N", N being the
// thread's voluntary context switches meanwhile (a sleep whose timer fired before the thread got
// off the CPU is none), then waits for a line (`then_wait`) or exits: an exit's last switch has
// no switch back in, so the waits seam can see are exactly the N.
std::vector<std::string> sleeper(bool then_wait = true) {
  return {test_python(), "-c",
          "import sys, time\n"
          "def waits():\n"
          "    with open('/proc/thread-self/status') as f:\n"
          "        for line in f:\n"
          "            if line.startswith('voluntary_ctxt_switches'):\n"
          "                return int(line.split()[1])\n"
          "print('ready', flush=True)\n"
          "sys.stdin.readline()\n"
          "before = waits()\n"
          "for _ in range(" +
              std::to_string(kSleeps) +
              "):\n"
              "    time.sleep(0.0001)\n"
              "print('done', waits() - before, flush=True)\n" +
              (then_wait ? "sys.stdin.readline()\n" : "")};
}

// seam's count of the sleeper's waits, from the summary (-1 if absent).
long long counted(const std::string& summary, const std::string& rules) {
  std::string head = "metric sleeps (count) from " + rules + ":2\n  (all): ";
  size_t at = summary.find(head);
  return at == std::string::npos ? -1 : std::stoll(summary.substr(at + head.size()));
}

std::string sleeps_rules(const std::string& pid) {
  return "use sched\n"
         "metric sleeps on sched.offcpu where prev_pid == " +
         pid +
         " and prev_state != 0 and prev_state < 256 count\n"
         "rule each_sleep on sched.offcpu where prev_pid == " +
         pid + " and prev_state != 0 and prev_state < 256\n    alert info \"slept {duration}\"\n";
}

// N of the sleeper's "done N" line, or "" when it did not come.
std::string waits_of(Child& app) {
  std::optional<std::string> done = app.line_starting("done ", 30s);
  return done ? done->substr(5) : "";
}

// The interval that ends as one of seam's threads leaves the CPU is the sleeper's as much as any:
// the switch back in runs in seam's context, and the self-filter tests the thread switched in.
TEST(SchedSubject, AnIntervalEndingAsSeamsThreadLeavesTheCpuIsKept) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Child app(sleeper(false));
  ASSERT_TRUE(app.wait_for_line("ready", 10s));
  const std::string pid = std::to_string(app.pid());
  std::string rules = dir.write("s.seam", sleeps_rules(pid));
  SeamRun seam(dir.path(), {rules, "--listen", "off", "--summary"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "", 60s)) << seam.stderr_text();
  ASSERT_TRUE(pin_to_cpu0(app.pid()));
  ASSERT_TRUE(pin_to_cpu0(seam.pid()));
  app.send_line("go");
  std::string waits = waits_of(app);
  ASSERT_FALSE(waits.empty());
  const long long n = std::stoll(waits);
  EXPECT_GE(n, kSleeps / 2);  // most sleeps wait off the CPU
  EXPECT_EQ(app.wait(), 0);
  // Every interval ended before the sleeper printed its count, and the count is the kernel's.
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  // At most 2% unseen for the kernel's reason above; the old self-filter lost 3-5%.
  const long long count = counted(seam.stdout_text(), rules);
  EXPECT_LE(count, n) << seam.stdout_text();
  EXPECT_GE(count, n - n / 50) << "the sleeper waited " << n << " times\n" << seam.stdout_text();
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
  std::string waits = waits_of(app);
  ASSERT_FALSE(waits.empty());
  const long long n = std::stoll(waits);
  EXPECT_GE(n, kSleeps / 2);  // most sleeps wait off the CPU
  app.send_line("bye");
  EXPECT_EQ(app.wait(), 0);
  ASSERT_TRUE(wait_until([&] { return seam.stdout_text().find("metric sleeps") != std::string::npos; }, 20s))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  // Its waits, and the wait for "bye". Before, the switch back in was tested on the task leaving
  // the CPU, which is seldom the sleeper's process: next to none were counted. Not exactly n: a few
  // switches can run no program (see the file's comment).
  const long long count = counted(seam.stdout_text(), rules);
  EXPECT_LE(count, n + 1) << seam.stdout_text();
  EXPECT_GE(count, n * 9 / 10) << "the sleeper waited " << n << " times\n" << seam.stdout_text();
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
