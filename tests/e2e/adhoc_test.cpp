// Ad-hoc investigations end to end: the design card's one-liner with -e (no `use`), rules on
// standard input with -c (the command and its children traced, the run ending with it, the
// metrics' summary at exit, its cgroup removed), and --dry-run naming the fixture library and a live process.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <signal.h>
#include <sys/stat.h>

#include "runtime/identity/cgroup_resolver.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using std::chrono::seconds;

// Loads the fixture with ctypes.PyDLL (the call keeps the GIL), says "ready", waits for "go",
// then calls cudaStreamSynchronize for argv[2] microseconds argv[3] times.
constexpr const char* kCaller = R"(
import ctypes, sys
held = ctypes.PyDLL(sys.argv[1])
held.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
print("ready", flush=True)
sys.stdin.readline()
for _ in range(int(sys.argv[3])):
    held.cudaStreamSynchronize(ctypes.c_void_p(int(sys.argv[2])))
print("done", flush=True)
)";

TEST(Adhoc, TheDesignCardsOneLinerNeedsNoUse) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Child caller(
      {test_python(), "-c", kCaller, std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12", "20000", "2"});
  ASSERT_TRUE(caller.wait_for_line("ready", seconds(10)));
  SeamRun seam(dir.path(), {"-e", "cudaStreamSynchronize > 10ms while gil_held -> alert with ustack", "--pid",
                            std::to_string(caller.pid()), "--listen", "off"});
  ASSERT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", seconds(60))) << seam.stderr_text();
  // gil_held is read from the interpreter's memory: no probe on libpython, a notice once it is found.
  ASSERT_TRUE(seam.wait_for_notice("interpreter", "reading the GIL of CPython", seconds(10)))
      << seam.stderr_text();
  caller.send_line("go");
  EXPECT_TRUE(caller.wait_for_line("done", seconds(20)));
  EXPECT_EQ(caller.wait(), 0);
  EXPECT_TRUE(wait_until([&] { return seam.alerts().size() >= 2; }, seconds(10))) << seam.stderr_text();
  // --pid: the run ends by itself once its process has exited.
  EXPECT_TRUE(wait_until([&] { return !seam.running(); }, seconds(10))) << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::vector<nlohmann::json> alerts = seam.alerts("cudaStreamSynchronize_L1");
  ASSERT_EQ(alerts.size(), 2u) << seam.stderr_text();
  EXPECT_EQ(alerts[0]["ustack"][0].value("symbol", ""), "cudaStreamSynchronize") << alerts[0].dump();
  // Named by the text's place on the command line, not the private file it was written to.
  EXPECT_EQ(alerts[0].value("file", ""), "<command-line-1>") << alerts[0].dump();
  EXPECT_EQ(seam.notices("target-exited").size(), 1u) << seam.stderr_text();
}

TEST(Adhoc, StdinRulesWithACommandAndTheSummaryAtExit) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string out = dir.path() + "/out.jsonl";
  CommandResult r = run_command({SEAM_EXE, "run", "-", "-c", "sleep 0.02; sleep 0.02; sleep 0.02", "--listen",
                                 "off", "-o", "json:" + out, "--duration", "120"},
                                "metric naps on syscalls.any where id == clock_nanosleep hist duration\n"
                                "syscalls.any where id == clock_nanosleep and duration > 5ms -> alert info "
                                "\"nap {duration}\" with pid\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The three sleeps are children of the command's shell: each is traced, each its own process.
  std::set<pid_t> pids;
  size_t alerts = 0;
  std::string text = read_file(out);
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    nlohmann::json line = nlohmann::json::parse(text.substr(at, end - at));
    at = end == std::string::npos ? text.size() : end + 1;
    if (line.value("rule", "") != "any_L2") continue;
    ++alerts;
    pids.insert(line.value("pid", 0));
  }
  EXPECT_EQ(alerts, 3u) << text;
  EXPECT_EQ(pids.size(), 3u) << text;
  // The summary: the histogram's count is the number of calls made, in one bucket of bars.
  EXPECT_NE(r.out.find("metric naps (hist) from <stdin>:1\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  (all): 3 values, avg "), std::string::npos) << r.out;
  // Bars per bucket (a busy host may stretch a 20 ms sleep into the next one), and no empty series.
  EXPECT_NE(r.out.find("ms]        "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(": 0 values"), std::string::npos) << r.out;
}

// `seam run -e` of a metric on every context switch (no library needed) with `-c command`.
std::vector<std::string> counting_switches_of(const std::string& command) {
  return {"-e", "use sched\nmetric switches on sched.offcpu count", "-c", command, "--listen", "off"};
}

// The cgroup -c makes for the command of `seam`.
std::string command_cgroup(const SeamRun& seam) {
  return runtime::cgroup2_root() + "/seam-run-" + std::to_string(seam.pid());
}

// -c's cgroup is gone when the run ends, though seam dropped the capability that removes it
// (the v2 root is mode 555) once its probes were attached: it used to stay, one per run.
TEST(Adhoc, TheCommandsCgroupIsRemovedWhenTheRunEnds) {
  SEAM_REQUIRE_ROOT();
  ASSERT_FALSE(runtime::cgroup2_root().empty()) << "no cgroup2 hierarchy mounted";
  TempDir dir;
  SeamRun seam(dir.path(), counting_switches_of("sleep 2"));
  std::string cgroup = command_cgroup(seam);
  struct stat st {};
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  EXPECT_EQ(::stat(cgroup.c_str(), &st), 0) << cgroup << " while the command runs";
  // The run ends by itself once the command has exited.
  EXPECT_TRUE(wait_until([&] { return !seam.running(); }, seconds(20))) << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  EXPECT_NE(::stat(cgroup.c_str(), &st), 0) << cgroup << " is left behind";
}

// seam stopped by a signal while the command runs stops the shell, not what the shell started: the
// cgroup stays while that child lives (rmdir would fail), and goes once it exits, seam long gone.
// It used to stay for good: the bench's `-c 'sleep 1'` runs left one per run.
TEST(Adhoc, TheCommandsCgroupIsRemovedOnceWhatItStartedHasGoneAfterSeamIsStopped) {
  SEAM_REQUIRE_ROOT();
  ASSERT_FALSE(runtime::cgroup2_root().empty()) << "no cgroup2 hierarchy mounted";
  TempDir dir;
  // `; true`: the shell forks the sleep and waits, rather than exec it.
  SeamRun seam(dir.path(), counting_switches_of("sleep 4; true"));
  std::string cgroup = command_cgroup(seam);
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  std::vector<pid_t> procs;
  ASSERT_TRUE(wait_until(
      [&] {
        procs.clear();
        std::istringstream in(read_file(cgroup + "/cgroup.procs"));
        for (pid_t p = 0; in >> p;) procs.push_back(p);
        return procs.size() == 2;  // the shell and its sleep
      },
      seconds(10)));
  seam.stop();
  struct stat st {};
  bool child_lives = std::any_of(procs.begin(), procs.end(), [](pid_t p) { return ::kill(p, 0) == 0; });
  ASSERT_TRUE(child_lives) << "the sleep must outlive seam for this test";
  EXPECT_EQ(::stat(cgroup.c_str(), &st), 0) << cgroup << " is removed only once the sleep has gone";
  EXPECT_TRUE(wait_until([&] { return ::stat(cgroup.c_str(), &st) != 0; }, seconds(20)))
      << cgroup << " is left behind";
}

// A mistake in -e text is shown where it was typed: the text's place on the command line, its line
// and column, not the private file seam wrote it to.
TEST(Adhoc, AMistakeIsShownByItsPlaceOnTheCommandLine) {
  CommandResult r = run_command({SEAM_EXE, "run", "-e", "cuda.malloc -> alert info \"ok\"", "-e",
                                 "cudaStreamSynchronize > 10ms -> alrt"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err,
            "<command-line-2>:1:33: error[E0001]: expected 'alert', found 'alrt'\n"
            "    1 | cudaStreamSynchronize > 10ms -> alrt\n"
            "      |                                 ^~~~\n"
            "\n"
            "1 error, 0 warnings\n");
}

TEST(Adhoc, DryRunNamesTheLibraryAndTheProcess) {
  SEAM_REQUIRE_ROOT();
  std::string lib = std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12";
  Child caller({std::string(SEAM_FIXTURE_DIR) + "/cuda_caller", lib, "1", "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", seconds(10)));
  CommandResult r = run_command({SEAM_EXE, "run", "--dry-run", std::string(SEAM_SOURCE_DIR) + "/rules"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  size_t rule = r.out.find("rule malloc_in_steady_state (");
  ASSERT_NE(rule, std::string::npos) << r.out;
  size_t next = r.out.find("\nrule ", rule + 1);
  std::string block = r.out.substr(rule, next - rule);
  EXPECT_NE(block.find("    uprobe cudart:cudaMalloc"), std::string::npos) << block;
  EXPECT_NE(block.find(lib), std::string::npos) << block;
  EXPECT_NE(block.find(std::to_string(caller.pid())), std::string::npos) << block;
  // Nothing was loaded: no BPF program of seam's exists after it (it never attached).
  EXPECT_EQ(r.err.find("probes attached"), std::string::npos) << r.err;
  caller.send_line("go");
  EXPECT_EQ(caller.wait(), 0);
}

TEST(Adhoc, ProbesListsALibrarysFunctionsAndTheDeclaredEvents) {
  SEAM_REQUIRE_ROOT();
  std::string lib = std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12";
  Child caller({std::string(SEAM_FIXTURE_DIR) + "/cuda_caller", lib, "1", "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", seconds(10)));
  CommandResult r = run_command({SEAM_EXE, "probes", "cudart:cudaStream*"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("span cuda.stream_sync = cudart:cudaStreamSynchronize\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("uprobe cudart:cudaStreamSynchronize  # " + lib + "\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("cudaMalloc"), std::string::npos) << r.out;
  caller.send_line("go");
  EXPECT_EQ(caller.wait(), 0);
  r = run_command({SEAM_EXE, "probes", "cudrt:*"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "seam probes: no module declares a library named 'cudrt'\n");
}

}  // namespace
}  // namespace seam::test
