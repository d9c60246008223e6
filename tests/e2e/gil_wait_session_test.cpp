// python.gil_wait through a uprobe session (compiler/lower/uprobe_session.cpp): a single-threaded
// Python loop makes N calls through ctypes.CDLL, each releasing the GIL and taking it back free.
// Every take_gil still counts (the histogram's count is N and a few calls of the interpreter's
// own), but the session program runs at the return of almost none of them: the kernel's run count
// of seam's one busy program is about one per call, and no second program runs at every call. With
// SEAM_NO_UPROBE_SESSION the entry and return probes come back and count the same calls. (That a wait behind
// a thread holding the GIL is still measured is PackRules.GilWaitEventMeasuresTheWaitForTheGil, which runs
// sessions here.)
#include <bpf/bpf.h>
#include <dirent.h>
#include <gtest/gtest.h>
#include <linux/bpf.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

constexpr int kCalls = 2000;

constexpr const char* kCaller = R"(
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
print("ready", flush=True)
sys.stdin.readline()
for _ in range(int(sys.argv[2])):
    lib.cudaStreamSynchronize(ctypes.c_void_p(0))
print("done", flush=True)
sys.stdin.readline()
)";

// The kernel's run counts of the programs `pid` (seam) holds, from /proc/PID/fdinfo (bpf_prog_info's
// run_cnt, counted while run statistics are on).
std::vector<uint64_t> run_counts(pid_t pid) {
  std::vector<uint64_t> out;
  std::string dir = "/proc/" + std::to_string(pid) + "/fdinfo";
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    std::ifstream in(dir + "/" + e->d_name);
    std::string line;
    bool prog = false;
    uint64_t runs = 0;
    while (std::getline(in, line)) {
      prog |= line.rfind("prog_type:", 0) == 0;
      if (line.rfind("run_cnt:", 0) == 0) runs = std::stoull(line.substr(8));
    }
    if (prog) out.push_back(runs);
  }
  closedir(d);
  return out;
}

// The run counts of at least `n`: the programs that ran at every call.
std::vector<uint64_t> at_least(const std::vector<uint64_t>& runs, uint64_t n) {
  std::vector<uint64_t> out;
  for (uint64_t r : runs)
    if (r >= n) out.push_back(r);
  return out;
}

// `metric calls ... count by pid` of `pid` in the --summary text, -1 when absent.
long long count_of(const std::string& summary, const std::string& pid) {
  std::smatch m;
  if (!std::regex_search(summary, m,
                         std::regex("metric calls \\(count by pid\\)[^\n]*\n  pid=" + pid + ": (\\d+)")))
    return -1;
  return std::stoll(m[1]);
}

struct Counted {
  long long calls = -1;
  std::vector<uint64_t> busy;  // run counts of seam's programs that ran at least once per call
};

// Runs the caller under `seam run --pid` with run statistics on; `no_session`: SEAM_NO_UPROBE_SESSION.
Counted count_take_gil(bool no_session) {
  Counted out;
  TempDir dir;
  std::string rules = dir.write("gil.seam",
                                "use python\n"
                                "metric calls on python.gil_wait count by pid\n"
                                "metric waits on python.gil_wait hist duration by pid\n");
  Child caller({test_python(), "-c", kCaller, std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12",
                std::to_string(kCalls)});
  EXPECT_TRUE(caller.wait_for_line("ready", 10s));
  const std::string pid = std::to_string(caller.pid());
  int stats = bpf_enable_stats(BPF_STATS_RUN_TIME);  // run_cnt counts while this is open
  EXPECT_GE(stats, 0);
  if (no_session) setenv("SEAM_NO_UPROBE_SESSION", "1", 1);
  SeamRun seam(dir.path(), {rules, "--pid", pid, "--listen", "off", "--summary"});
  unsetenv("SEAM_NO_UPROBE_SESSION");
  EXPECT_TRUE(seam.wait_for_notice("attached", "libpython", 30s)) << seam.stderr_text();
  EXPECT_TRUE(seam.wait_for_notice("interpreter", "reading the GIL of CPython", 10s) || no_session)
      << seam.stderr_text();
  caller.send_line("go");
  EXPECT_TRUE(caller.wait_for_line("done", 30s));
  out.busy = at_least(run_counts(seam.pid()), kCalls);
  caller.send_line("exit");
  EXPECT_EQ(caller.wait(), 0);
  // --pid ends the run when the caller exits; --summary prints every metric then.
  EXPECT_TRUE(wait_until([&] { return count_of(seam.stdout_text(), pid) >= 0; }, 20s)) << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  if (stats >= 0) close(stats);
  out.calls = count_of(seam.stdout_text(), pid);
  EXPECT_NE(seam.stdout_text().find("metric waits (hist by pid)"), std::string::npos) << seam.stdout_text();
  return out;
}

TEST(GilWaitSession, EveryAcquisitionCountsAndTheReturnAlmostNeverRuns) {
  SEAM_REQUIRE_ROOT();
  Counted c = count_take_gil(false);
  // Each call takes the GIL back once; the interpreter takes it a few more times (the readline
  // that returns "go", the prints, the exit).
  EXPECT_GE(c.calls, kCalls);
  EXPECT_LE(c.calls, kCalls + 50);
  // One program ran at every call, at its entry; at the return only where the GIL was held at the
  // entry (the interpreter's own calls, at most): far fewer than one run more per call.
  ASSERT_EQ(c.busy.size(), 1u) << "one session program, no return program";
  EXPECT_LT(c.busy[0], static_cast<uint64_t>(kCalls + kCalls / 10)) << "the return ran for most calls";
}

TEST(GilWaitSession, WithoutSessionsTheEntryAndReturnProbesCountTheSame) {
  SEAM_REQUIRE_ROOT();
  Counted c = count_take_gil(true);
  EXPECT_GE(c.calls, kCalls);
  EXPECT_LE(c.calls, kCalls + 50);
  // The entry program and the return program, each at every call.
  EXPECT_EQ(c.busy.size(), 2u);
}

}  // namespace
}  // namespace seam::test
