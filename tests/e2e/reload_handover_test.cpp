// The hand-over of a reload (docs/operations.md, "Hot reload"; runtime/run/live_generation.hpp):
// exactly one object acts at every instant, so a rule of an unchanged file alerts once per call
// across the reload (none twice, none missed), and a span begun under the old object and ended
// under the new one alerts once, with its whole duration (its in-flight map is carried over).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "runtime/load/features.hpp"
#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

// Reads a first line (its read began before seam started), says so, then blocks in a second
// read of stdin until the test sends a line: a syscall span whose end the test decides.
constexpr const char* kReader = R"(
import sys
print("ready", flush=True)
sys.stdin.readline()
print("reading", flush=True)
sys.stdin.readline()
print("done", flush=True)
)";

std::string seq_rule(const std::string& name) {
  return "use cuda\n\nrule " + name + "\n    on cudaMalloc\n    alert info \"" + name + " {size}\"\n";
}

// A rule on getppid, which the workloads never call: a file to edit.
std::string idle_rule(const std::string& name, pid_t pid) {
  return "use syscalls\n\nrule " + name + "\n    on syscalls.any where pid == " + std::to_string(pid) +
         " and id == getppid\n    alert info \"" + name + "\"\n";
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Whether the process's (one) thread is blocked in read(2) now (x86-64: syscall 0).
bool blocked_in_read(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/syscall");
  std::string first;
  return static_cast<bool>(in >> first) && first == "0";
}

// The rule that alerts on the blocked read, in the file `file`; `modules`: module files it uses.
struct ReadRule {
  std::string file, text;
  std::vector<std::string> modules;
};

class ReloadHandover : public ::testing::Test {
 protected:
  // Replaces a rule file the way sed -i and vim do: a temporary file renamed over it.
  void rename_over(const std::string& name, const std::string& text) {
    std::string tmp = dir_.write("rules/." + name + ".tmp", text);
    ASSERT_EQ(std::rename(tmp.c_str(), (dir_.path() + "/rules/" + name).c_str()), 0);
  }
  static std::vector<int64_t> seqs(const SeamRun& seam, const std::string& rule) {
    std::vector<int64_t> out;
    for (const nlohmann::json& a : seam.alerts(rule)) out.push_back(a["fields"].value("size", int64_t{-1}));
    return out;
  }

  void return_probe_read_across_a_reload(bool perf_events);
  void read_blocked_across_a_reload(const ReadRule& read, const std::string& other,
                                    const std::string& other_v1, const std::string& other_v2, pid_t pid,
                                    int64_t spawned, Child& reader);

  TempDir dir_;
};

// a.seam is not edited: each call alerts once, before, during and after the reload of b.seam.
// b.seam's old rule sees every call up to the flip and its new rule every call from it.
TEST_F(ReloadHandover, AnUnchangedFileAlertsOncePerCallAcrossAReload) {
  SEAM_REQUIRE_ROOT();
  // A call every ~0.2 ms: dense enough that the moment both objects were attached held several.
  Child caller(numbered_malloc_caller("0.0001"));
  ASSERT_TRUE(caller.wait_for_line("ready", 10s));
  dir_.write("rules/a.seam", seq_rule("seq_a"));
  dir_.write("rules/b.seam", seq_rule("seq_b1"));
  SeamRun seam(dir_.path(),
               {dir_.path() + "/rules", "--pid", std::to_string(caller.pid()), "--listen", "off"});
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_b1").size() >= 20; }, 30s)) << seam.stderr_text();
  rename_over("b.seam", seq_rule("seq_b2"));
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_b2").size() >= 50; }, 60s)) << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("reloaded", "reload: 1 compiled, 0 failed, 1 unchanged, 0 removed", 10s))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();

  std::vector<int64_t> a = seqs(seam, "seq_a"), b1 = seqs(seam, "seq_b1"), b2 = seqs(seam, "seq_b2");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b1.empty());
  ASSERT_FALSE(b2.empty());
  int64_t flip = *std::min_element(b2.begin(), b2.end());  // the first call the new object saw
  std::set<int64_t> seen_a(a.begin(), a.end());
  EXPECT_EQ(seen_a.size(), a.size()) << a.size() - seen_a.size() << " calls alerted twice by seq_a";
  int64_t first = *seen_a.begin(), last = *seen_a.rbegin();
  ASSERT_LT(first, flip) << "seq_a must alert before the reload";
  ASSERT_GT(last, flip) << "seq_a must alert after the reload";
  EXPECT_EQ(static_cast<int64_t>(a.size()), last - first + 1)
      << "seq_a: " << a.size() << " alerts for the " << last - first + 1 << " calls " << first << ".."
      << last;
  // The edited file: the old version up to the flip, the new one from it, each call once.
  std::set<int64_t> seen_b(b1.begin(), b1.end());
  EXPECT_EQ(seen_b.size(), b1.size());
  EXPECT_EQ(*seen_b.rbegin() + 1, flip) << "the old rule's last call and the new rule's first meet";
  for (int64_t s : b2) EXPECT_TRUE(seen_b.insert(s).second) << "call " << s << " alerted by both versions";
  EXPECT_EQ(static_cast<int64_t>(seen_b.size()), *seen_b.rbegin() - *seen_b.begin() + 1);
}

// The read's rule on the read syscall's span (raw_syscalls or syscalls tracepoints).
ReadRule syscall_read_rule(const std::string& file, pid_t pid) {
  return {file,
          "use syscalls\n\nrule slow_read\n    on syscalls.any where pid == " + std::to_string(pid) +
              " and id == read and duration > 100ms\n    alert info \"read {duration}\"\n",
          {}};
}

// A read that blocks across the reload of another file: begun under the old object, ended under
// the new one, it alerts once, with the time it really blocked. `read` is the read's rule;
// `other` (2 rules when `other_v2` is written) is replaced by `other_v2` while it blocks.
void ReloadHandover::read_blocked_across_a_reload(const ReadRule& read, const std::string& other,
                                                  const std::string& other_v1, const std::string& other_v2,
                                                  pid_t pid, int64_t spawned, Child& reader) {
  std::string p = std::to_string(pid);
  dir_.write("rules/" + read.file, read.text);
  dir_.write("rules/" + other, other_v1);
  std::vector<std::string> args = read.modules;
  for (const char* a : {"/rules", "--pid"}) args.push_back(a[0] == '/' ? dir_.path() + a : a);
  for (const std::string& a : {p, std::string("--listen"), std::string("off")}) args.push_back(a);
  SeamRun seam(dir_.path(), args);
  ASSERT_TRUE(seam.wait_for_notice("ready", "for 2 rules", 60s)) << seam.stderr_text();
  reader.send_line("start");  // ends the read begun before seam; the next one begins now
  ASSERT_TRUE(reader.wait_for_line("reading", 10s));
  ASSERT_TRUE(wait_until([&] { return blocked_in_read(pid); }, 10s));
  int64_t blocked = now_ns();
  rename_over(other, other_v2);
  std::string unchanged = std::to_string(1 + read.modules.size());  // the read's file and the modules
  ASSERT_TRUE(seam.wait_for_notice(
      "reloaded", "reload: 1 compiled, 0 failed, " + unchanged + " unchanged, 0 removed", 60s))
      << seam.stderr_text();
  ASSERT_TRUE(blocked_in_read(pid)) << "the read must last across the reload";
  int64_t sent = now_ns();
  reader.send_line("end");
  ASSERT_TRUE(reader.wait_for_line("done", 10s));
  int64_t done = now_ns();
  ASSERT_TRUE(wait_until([&] { return !seam.alerts("slow_read").empty(); }, 10s)) << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::vector<nlohmann::json> alerts = seam.alerts("slow_read");
  ASSERT_EQ(alerts.size(), 1u) << alerts.size() << " alerts for one read";
  int64_t duration = alerts[0]["fields"].value("duration", int64_t{0});
  EXPECT_GE(duration, sent - blocked) << alerts[0].dump();
  EXPECT_LE(duration, done - spawned) << alerts[0].dump();
}

TEST_F(ReloadHandover, ASpanBegunBeforeAReloadEndsAfterItOnce) {
  SEAM_REQUIRE_ROOT();
  int64_t spawned = now_ns();
  Child reader({test_python(), "-c", kReader});
  ASSERT_TRUE(reader.wait_for_line("ready", 10s));
  read_blocked_across_a_reload(syscall_read_rule("a.seam", reader.pid()), "b.seam",
                               idle_rule("idle_v1", reader.pid()), idle_rule("idle_v2", reader.pid()),
                               reader.pid(), spawned, reader);
}

// The edited file sorts before the read's and gains a rule on another span, whose map comes
// before the read's in the set: the read's map keeps its name (it is named by what it holds,
// compiler/lower/map_names.hpp, not by its place), so the new object still ends the read.
TEST_F(ReloadHandover, ASpanOutlivesAReloadInWhichAnEarlierFileGainsARule) {
  SEAM_REQUIRE_ROOT();
  int64_t spawned = now_ns();
  Child reader({test_python(), "-c", kReader});
  ASSERT_TRUE(reader.wait_for_line("ready", 10s));
  std::string grown = idle_rule("idle", reader.pid()) +
                      "\nrule slow_getpid\n    on syscalls.any where pid == " + std::to_string(reader.pid()) +
                      " and id == getpid and duration > 1s\n    alert info \"getpid {duration}\"\n";
  read_blocked_across_a_reload(syscall_read_rule("b.seam", reader.pid()), "a.seam",
                               idle_rule("idle", reader.pid()), grown, reader.pid(), spawned, reader);
}

// The same read as a span on libc's read(), entry and return probes: the call enters under the
// old object and returns after the reload. `perf_events`: the uprobes attach through perf events
// (SEAM_NO_UPROBE_MULTI=1, as on kernels before 6.6), where a return probe runs only for the calls
// whose entry it saw, so the old object keeps its return probes a while after the reload
// (RuleUnit::linger) and ends the call itself (seam_ends). Otherwise uprobe_multi links: the
// kernel runs at the call's return every return probe attached then, so the new object ends it
// (docs/operations.md, "No gap, no duplicate").
void ReloadHandover::return_probe_read_across_a_reload(bool perf_events) {
  std::string module = dir_.write("modules/blocking.seam",
                                  "module blocking\nlibrary libc = \"libc.so.6\"\nspan read = libc:read()\n");
  int64_t spawned = now_ns();
  Child reader({test_python(), "-c", kReader});
  ASSERT_TRUE(reader.wait_for_line("ready", 10s));
  ReadRule read{
      "a.seam",
      "use blocking\n\nrule slow_read\n    on blocking.read where pid == " + std::to_string(reader.pid()) +
          " and duration > 100ms\n    alert info \"read {duration}\"\n",
      {module}};
  if (perf_events) {
    ASSERT_EQ(setenv("SEAM_NO_UPROBE_MULTI", "1", 1), 0);  // for the seam it starts
  }
  read_blocked_across_a_reload(read, "b.seam", idle_rule("idle_v1", reader.pid()),
                               idle_rule("idle_v2", reader.pid()), reader.pid(), spawned, reader);
  unsetenv("SEAM_NO_UPROBE_MULTI");
}

TEST_F(ReloadHandover, ASpanOnAReturnProbeBegunBeforeAReloadEndsAfterItOnce) {
  SEAM_REQUIRE_ROOT();
  if (!runtime::probe_features().uprobe_multi.available)
    GTEST_SKIP() << "no uprobe_multi links here (" << runtime::probe_features().uprobe_multi.reason
                 << "): the next test covers return probes through perf events";
  return_probe_read_across_a_reload(false);
}

TEST_F(ReloadHandover, ASpanOnAPerfEventReturnProbeBegunBeforeAReloadEndsAfterItOnce) {
  SEAM_REQUIRE_ROOT();
  return_probe_read_across_a_reload(true);
}

}  // namespace
}  // namespace seam::test
