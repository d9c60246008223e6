// Tuning the pack from another file, end to end: a disabled rule attaches nothing, a raised
// threshold stops a 5 ms futex wait from alerting, an exception by comm holds it back, and
// `--disable tag:T` disables the rules so tagged. Workloads are tests/fixtures/pack_workload.c;
// the rules keep to their pids, since syscall tracepoints see every process of the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using std::chrono::seconds;

// The fixture's command line; an inference workload maps the fixture CUDA runtime first, so the
// pack's `scope workload` rules see it.
std::vector<std::string> pack_workload(const std::string& what, const std::string& arg, bool inference) {
  std::string fixtures = SEAM_FIXTURE_DIR;
  if (inference)
    setenv("PACK_WORKLOAD_DLOPEN", (fixtures + "/libcudart.so.12").c_str(), 1);
  else
    unsetenv("PACK_WORKLOAD_DLOPEN");
  return {fixtures + "/pack_workload", what, arg};
}

struct Workload {
  Workload(const std::string& what, const std::string& arg, bool inference = false)
      : child(pack_workload(what, arg, inference)), pid_(child.pid()) {
    EXPECT_TRUE(child.wait_for_line("ready", seconds(10)));
  }
  void run() {
    child.send_line("go");
    EXPECT_TRUE(child.wait_for_line("done", seconds(30)));
    EXPECT_EQ(child.wait(), 0);
  }
  // Still known once run() has reaped the child (Child::pid() is then -1, which no alert has).
  pid_t pid() const { return pid_; }
  Child child;
  pid_t pid_;
};

// "N probes attached for M rules": N and M of the ready notice.
std::pair<int, int> ready_counts(const SeamRun& seam) {
  for (const nlohmann::json& n : seam.notices("ready")) {
    std::smatch m;
    std::string message = n.value("message", "");
    if (std::regex_search(message, m, std::regex("(\\d+) probes attached for (\\d+) rules")))
      return {std::stoi(m[1]), std::stoi(m[2])};
  }
  return {-1, -1};
}

// A futex wait rule like the pack's, kept to the given pids, with a tag.
std::string futex_rules(pid_t a, pid_t b) {
  std::string pids = "(pid == " + std::to_string(a) + " or pid == " + std::to_string(b) + ")";
  return "use syscalls\n"
         "rule futex_wait_slow\n"
         "    on syscalls.futex where duration > 1ms and " +
         pids +
         " and op & 0x7f == 0\n"
         "    alert info \"waited {duration}\" with pid\n"
         "    tags waits\n"
         "rule futex_control\n"
         "    on syscalls.futex where duration > 1ms and " +
         pids +
         " and op & 0x7f == 0\n"
         "    alert info \"control {duration}\" with pid\n"
         "    tags control\n";
}

TEST(Tuning, ADisabledPackRuleAttachesNothing) {
  SEAM_REQUIRE_ROOT();
  std::string pack = std::string(SEAM_SOURCE_DIR) + "/rules/syscalls.seam";
  std::pair<int, int> whole, tuned;
  {
    TempDir dir;
    SeamRun seam(dir.path(), {pack, "--listen", "off"});
    ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
    whole = ready_counts(seam);
  }
  TempDir dir;
  Workload loud("futex", "30", true);  // in the pack's scope: only the disable holds its alert back
  SeamRun seam(dir.path(),
               {pack, dir.write("local/tune.seam", "disable rule futex_wait_slow\n"), "--listen", "off"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  tuned = ready_counts(seam);
  EXPECT_EQ(whole.second, 2);
  EXPECT_EQ(tuned.second, 1) << seam.stderr_text();
  // futex_wait_slow's two futex tracepoints are gone; syscall_slow's stay.
  EXPECT_EQ(tuned.first, whole.first - 2) << seam.stderr_text();
  loud.run();
  EXPECT_EQ(of_pid(seam.alerts("futex_wait_slow"), loud.pid()).size(), 0u);
}

TEST(Tuning, ARaisedThresholdStopsAFiveMillisecondWait) {
  SEAM_REQUIRE_ROOT();
  for (bool raised : {false, true}) {
    SCOPED_TRACE(raised ? "threshold 20ms" : "as shipped");
    TempDir dir;
    Workload five("futex", "5");
    Workload thirty("futex", "30");
    std::vector<std::string> args = {dir.write("pack.seam", futex_rules(five.pid(), thirty.pid())),
                                     "--listen", "off"};
    if (raised)
      args.push_back(dir.write("local/tune.seam", "override rule futex_wait_slow threshold 20ms\n"));
    SeamRun seam(dir.path(), args);
    ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
    five.run();
    thirty.run();
    // The 30 ms wait alerts either way; once it has, the 5 ms one (before it) is settled too.
    ASSERT_TRUE(wait_until([&] { return !of_pid(seam.alerts("futex_wait_slow"), thirty.pid()).empty(); },
                           seconds(10)))
        << seam.stderr_text();
    ASSERT_TRUE(
        wait_until([&] { return !of_pid(seam.alerts("futex_control"), five.pid()).empty(); }, seconds(10)));
    // As shipped, the 5 ms wait alerts (main's join may add a wait over 1 ms on a busy host);
    // with the threshold raised to 20 ms, nothing of five's does.
    std::vector<nlohmann::json> of_five = of_pid(seam.alerts("futex_wait_slow"), five.pid());
    bool five_ms_seen = std::any_of(of_five.begin(), of_five.end(), [](const nlohmann::json& a) {
      return a["fields"].value("duration", 0LL) >= 5'000'000;
    });
    if (raised)
      EXPECT_EQ(of_five.size(), 0u) << of_five.front().dump();
    else
      EXPECT_TRUE(five_ms_seen) << seam.stderr_text();
  }
}

TEST(Tuning, AnExceptionByCommHoldsTheRuleBack) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Workload loud("futex", "30");
  pid_t pid = loud.pid();
  SeamRun seam(dir.path(), {dir.write("pack.seam", futex_rules(pid, pid)),
                            dir.write("local/tune.seam",
                                      "override rule futex_wait_slow except comm == \"pack_workload\"\n"),
                            "--listen", "off"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  loud.run();
  ASSERT_TRUE(wait_until([&] { return !of_pid(seam.alerts("futex_control"), pid).empty(); }, seconds(10)))
      << seam.stderr_text();
  EXPECT_EQ(of_pid(seam.alerts("futex_wait_slow"), pid).size(), 0u);
}

TEST(Tuning, DisableByTagOnTheCommandLine) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Workload loud("futex", "30");
  pid_t pid = loud.pid();
  SeamRun seam(dir.path(),
               {dir.write("pack.seam", futex_rules(pid, pid)), "--disable", "tag:waits", "--listen", "off"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  EXPECT_EQ(ready_counts(seam).second, 1);
  loud.run();
  ASSERT_TRUE(wait_until([&] { return !of_pid(seam.alerts("futex_control"), pid).empty(); }, seconds(10)))
      << seam.stderr_text();
  EXPECT_EQ(of_pid(seam.alerts("futex_wait_slow"), pid).size(), 0u);
}

}  // namespace
}  // namespace seam::test
