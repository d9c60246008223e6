// Issue 13, item 11: discovery that keeps up. Short-lived processes that map a library in a
// folder seam has never looked at, run one after another and in a storm, are traced from the
// first few on (the dynamic loader's hook, runtime/run/loader_hook.hpp); libraries loaded from a
// deleted file, a memfd under another name, or a path with a newline are traced too.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

constexpr const char* kSyncRule =
    "use cuda\n\nrule every_sync\n    on cuda.stream_sync\n    alert info \"sync {duration}\"\n";

std::string fixture(const std::string& name) {
  return std::string(SEAM_FIXTURE_DIR) + "/" + name;
}

// cuda_caller LIB CALLS 0, told "go" at once: it loads the library, calls, and exits, in about
// a millisecond. Returns its pid (not yet reaped).
pid_t start_short_caller(const std::string& lib, int calls) {
  int in[2];
  if (pipe(in) != 0) return -1;
  if (write(in[1], "go\n", 3) != 3) return -1;
  close(in[1]);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    std::string caller = fixture("cuda_caller"), count = std::to_string(calls);
    execl(caller.c_str(), caller.c_str(), lib.c_str(), count.c_str(), "0", nullptr);
    _exit(127);
  }
  close(in[0]);
  return pid;
}

bool exited_cleanly(pid_t pid) {
  int status = 0;
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The indexes in `pids` of the processes with fewer than `calls` alerts, in order.
std::vector<size_t> untraced(const SeamRun& seam, const std::vector<pid_t>& pids, size_t calls) {
  std::map<long, size_t> per_pid;
  for (const nlohmann::json& a : seam.alerts("every_sync")) ++per_pid[a.value("pid", -1L)];
  std::vector<size_t> missed;
  for (size_t i = 0; i < pids.size(); ++i)
    if (per_pid[pids[i]] < calls) missed.push_back(i);
  return missed;
}

// How many of `pids` have at least `calls` alerts.
size_t traced(const SeamRun& seam, const std::vector<pid_t>& pids, size_t calls) {
  return pids.size() - untraced(seam, pids, calls).size();
}

// A fresh folder holding a copy of the fixture (a new inode no process has mapped yet).
std::string unseen_copy(const TempDir& dir, const std::string& folder) {
  fs::create_directories(dir.path() + "/" + folder);
  std::string lib = dir.path() + "/" + folder + "/libcudart.so.12";
  fs::copy_file(fixture("libcudart.so.12"), lib);
  return lib;
}

void start_and_wait_ready(SeamRun& seam) {
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", 60s)) << seam.stderr_text();
  EXPECT_TRUE(seam.notices("loader-hook-unavailable").empty()) << seam.stderr_text();
}

// 100 processes one after another, each loading the library from a folder seam has not seen
// and calling it once: the issue measured 0 of 200 traced. The first few may run before the
// probes are attached; at least 95 must be traced.
TEST(Discovery, ShortLivedProcessesLoadingALibraryFromANewFolderAreTraced) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("rules/sync.seam", kSyncRule);
  SeamRun seam(dir.path(), {rules});
  start_and_wait_ready(seam);
  std::string lib = unseen_copy(dir, "unseen");
  ASSERT_FALSE(seam.wait_for_notice("attached", lib, 0ms)) << "seam knew the folder already";

  constexpr int kProcesses = 100;
  std::vector<pid_t> pids;
  for (int i = 0; i < kProcesses; ++i) {
    pid_t pid = start_short_caller(lib, 1);
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(exited_cleanly(pid)) << "cuda_caller failed";
    pids.push_back(pid);
  }
  // The last one ran well after the library was known: its alert arriving means every earlier
  // alert has been written too (one ring, read in order).
  ASSERT_TRUE(wait_until([&] { return traced(seam, {pids.back()}, 1) == 1; }, 30s))
      << "the last process was not traced\n"
      << seam.stderr_text();
  // By start order: the first few are expected (before the attach), any later one is a gap.
  std::vector<size_t> missed = untraced(seam, pids, 1);
  std::string listed;
  for (size_t i : missed) listed += " " + std::to_string(i);
  EXPECT_GE(pids.size() - missed.size(), 95u) << "untraced, by start order:" << listed << "\n"
                                              << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

// An exec storm: 1,000 processes, 25 at a time, each loading a library from a new folder and
// calling it twice (2,000 calls; the issue measured 1,460 of 2,001 traced). At least 95% traced.
TEST(Discovery, AnExecStormLoadingALibraryFromANewFolderIsTraced) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("rules/sync.seam", kSyncRule);
  SeamRun seam(dir.path(), {rules});
  start_and_wait_ready(seam);
  std::string lib = unseen_copy(dir, "storm");

  constexpr int kProcesses = 1000, kAtOnce = 25, kCalls = 2;
  std::vector<pid_t> pids;
  for (int i = 0; i < kProcesses; i += kAtOnce) {
    std::vector<pid_t> batch;
    for (int k = 0; k < kAtOnce; ++k) batch.push_back(start_short_caller(lib, kCalls));
    for (pid_t pid : batch) {
      ASSERT_GT(pid, 0);
      ASSERT_TRUE(exited_cleanly(pid)) << "cuda_caller failed";
      pids.push_back(pid);
    }
  }
  ASSERT_TRUE(wait_until([&] { return traced(seam, {pids.back()}, kCalls) == 1; }, 60s))
      << "the last process was not traced\n"
      << seam.stderr_text();
  size_t calls = 0;
  std::set<long> ours(pids.begin(), pids.end());
  for (const nlohmann::json& a : seam.alerts("every_sync")) calls += ours.count(a.value("pid", -1L));
  EXPECT_GE(calls, kProcesses * kCalls * 95 / 100) << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

// A library loaded from a file deleted since, from a memfd whose name matches no pattern, and
// from a path with a newline in it: each process's calls are traced (the issue measured 0 of
// 5). The first three run before seam starts (found by its first scan); the memfd also after
// (found when the loader says it loaded /proc/self/fd/N).
TEST(Discovery, DeletedMemfdAndOddlyNamedLibrariesAreTraced) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string deleted = unseen_copy(dir, "deleted");
  std::string odd = unseen_copy(dir, "odd\nfolder");
  std::string rules = dir.write("rules/sync.seam", kSyncRule);
  constexpr int kCalls = 5;
  std::vector<std::unique_ptr<Child>> callers;
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{deleted}, {odd}, {fixture("libcudart.so.12"), "--memfd", "weights"}}) {
    std::vector<std::string> argv = {fixture("cuda_caller"), extra[0], std::to_string(kCalls), "0"};
    argv.insert(argv.end(), extra.begin() + 1, extra.end());
    callers.push_back(std::make_unique<Child>(argv));
    ASSERT_TRUE(callers.back()->wait_for_line("ready", 10s));
  }
  ASSERT_EQ(unlink(deleted.c_str()), 0);
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  SeamRun seam(dir.path(), {rules, "--listen", listen});
  start_and_wait_ready(seam);
  callers.push_back(std::make_unique<Child>(std::vector<std::string>{
      fixture("cuda_caller"), fixture("libcudart.so.12"), std::to_string(kCalls), "0", "--memfd", "late"}));
  ASSERT_TRUE(callers.back()->wait_for_line("ready", 10s));
  ASSERT_TRUE(seam.wait_for_notice("attached", "/memfd:late", 10s)) << seam.stderr_text();
  // Item 15: the gauge once read 0 while probes were attached. Four files at least: the deleted
  // copy, the odd one and the two memfds (others' processes may add the fixture itself).
  EXPECT_TRUE(wait_until(
      [&] {
        const std::string series = "\nseam_library_files_attached ";
        std::string body = http_get("http://" + listen + "/metrics");
        size_t at = body.find(series);
        return at != std::string::npos && std::atoll(body.c_str() + at + series.size()) >= 4;
      },
      10s))
      << http_get("http://" + listen + "/metrics");
  std::vector<pid_t> pids;
  for (auto& c : callers) {
    c->send_line("go");
    ASSERT_TRUE(c->wait_for_line("done", 10s));
    pids.push_back(c->pid());
  }
  EXPECT_TRUE(wait_until([&] { return traced(seam, pids, kCalls) == pids.size(); }, 30s))
      << "deleted, odd path, memfd, late memfd: " << traced(seam, {pids[0]}, kCalls)
      << traced(seam, {pids[1]}, kCalls) << traced(seam, {pids[2]}, kCalls) << traced(seam, {pids[3]}, kCalls)
      << "\n"
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

}  // namespace
}  // namespace seam::test
