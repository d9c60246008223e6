// Libraries are found wherever processes map them: in processes started after seam, in
// libraries loaded by dlopen after seam started, inside containers (another mount namespace),
// and in the real CUDA runtime where it is installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

constexpr const char* kEverySync =
    "use cuda\n"
    "rule every_sync on cuda.stream_sync alert info \"sync took {duration}\"\n";

std::string fixture(const char* name) {
  return std::string(SEAM_FIXTURE_DIR) + "/" + name;
}

// Alerts of the test's rule made by one process: other programs on the machine may call the
// same libraries while the test runs.
size_t alerts_from(const SeamRun& seam, pid_t pid) {
  size_t n = 0;
  for (const nlohmann::json& a : seam.alerts("every_sync")) n += a.value("pid", 0) == pid;
  return n;
}

// Waits for seam's "ready" notice: everything present at start is attached.
void wait_ready(const SeamRun& seam) {
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
      << seam.stderr_text();
}

TEST(Attach, ProcessStartedAfterSeamIsAttached) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  SeamRun seam(dir.path(), {dir.write("r.seam", kEverySync)});
  wait_ready(seam);
  Child caller({fixture("cuda_caller"), fixture("libcudart.so.12"), "3", "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  // New processes are noticed at exec and their libraries attached within about a second. The
  // full path: other sessions' tests map fixtures of the same name from their own build trees.
  ASSERT_TRUE(seam.wait_for_notice("attached", fixture("libcudart.so.12"), std::chrono::seconds(3)))
      << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(10)));
  EXPECT_TRUE(wait_until([&] { return alerts_from(seam, caller.pid()) >= 3; }, std::chrono::seconds(5)));
  EXPECT_EQ(seam.stop(), 0);
  EXPECT_EQ(alerts_from(seam, caller.pid()), 3u);
}

TEST(Attach, LibraryLoadedByDlopenAfterStartIsAttached) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  // A process that is already running when seam starts, and loads the library only later.
  Child late({test_python(), "-c",
              "import ctypes, sys\n"
              "print('ready', flush=True); sys.stdin.readline()\n"
              "lib = ctypes.CDLL(sys.argv[1]); lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]\n"
              "print('loaded', flush=True); sys.stdin.readline()\n"
              "[lib.cudaStreamSynchronize(None) for _ in range(4)]\n"
              "print('done', flush=True)\n",
              fixture("libcudart.so.12")});
  ASSERT_TRUE(late.wait_for_line("ready", std::chrono::seconds(10)));
  SeamRun seam(dir.path(), {dir.write("r.seam", kEverySync), "--pid", std::to_string(late.pid())});
  wait_ready(seam);
  late.send_line("load");
  ASSERT_TRUE(late.wait_for_line("loaded", std::chrono::seconds(10)));
  ASSERT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", std::chrono::seconds(3)))
      << seam.stderr_text();
  late.send_line("go");
  ASSERT_TRUE(late.wait_for_line("done", std::chrono::seconds(10)));
  EXPECT_TRUE(wait_until([&] { return alerts_from(seam, late.pid()) >= 4; }, std::chrono::seconds(5)));
  EXPECT_EQ(seam.stop(), 0);
  EXPECT_EQ(alerts_from(seam, late.pid()), 4u);
}

TEST(Attach, LibraryInsideAnotherMountNamespaceIsReachedThroughProcRoot) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string private_dir = dir.path() + "/container-lib";
  std::filesystem::create_directories(private_dir);
  Child caller({fixture("cuda_caller"), fixture("libcudart.so.12"), "2", "0", "--private-copy", private_dir});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  // From seam's mount namespace the copy does not exist at that path.
  EXPECT_FALSE(std::filesystem::exists(private_dir + "/libcudart.so.12"));
  SeamRun seam(dir.path(), {dir.write("r.seam", kEverySync)});
  wait_ready(seam);
  EXPECT_TRUE(seam.wait_for_notice(
      "attached", "/proc/" + std::to_string(caller.pid()) + "/root" + private_dir, std::chrono::seconds(3)))
      << seam.stderr_text() << read_file(seam.output_path());
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(10)));
  EXPECT_TRUE(wait_until([&] { return alerts_from(seam, caller.pid()) >= 2; }, std::chrono::seconds(5)));
  EXPECT_EQ(seam.stop(), 0);
  EXPECT_EQ(alerts_from(seam, caller.pid()), 2u);
}

TEST(Attach, RealCudaRuntimeCountsExactlyTheCallsMade) {
  SEAM_REQUIRE_ROOT();
  const std::string real = "/usr/local/cuda/lib/libcudart.so.13";
  if (!std::filesystem::exists(real)) GTEST_SKIP() << real << " is not installed here";
  TempDir dir;
  Child caller({fixture("cuda_caller"), real, "7", "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  // --pid: other programs on the machine may use the same real library.
  SeamRun seam(dir.path(), {dir.write("r.seam", kEverySync), "--pid", std::to_string(caller.pid())});
  wait_ready(seam);
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(20)));
  EXPECT_TRUE(wait_until([&] { return seam.alerts("every_sync").size() >= 7; }, std::chrono::seconds(5)));
  EXPECT_EQ(seam.stop(), 0);
  std::vector<nlohmann::json> alerts = seam.alerts("every_sync");
  EXPECT_EQ(alerts.size(), 7u);
  for (const nlohmann::json& a : alerts) EXPECT_EQ(a.value("pid", 0), caller.pid());
}

// The BPF links of a process, by link type: its fds' fdinfo (link_type: uprobe_multi, perf, ...).
std::map<std::string, int> link_types(pid_t pid) {
  std::map<std::string, int> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fdinfo", ec)) {
    std::istringstream info(read_file(e.path().string()));
    for (std::string line; std::getline(info, line);)
      if (line.rfind("link_type:", 0) == 0) ++out[line.substr(line.find_first_not_of(" \t", 10))];
  }
  return out;
}

// SEAM_NO_UPROBE_MULTI=1 attaches uprobes through perf events, as on kernels without uprobe_multi
// links (docs/language.md); every call is still seen.
TEST(Attach, NoUprobeMultiAttachesThroughPerfEventsAndSeesEveryCall) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Child caller({fixture("cuda_caller"), fixture("libcudart.so.12"), "3", "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  ASSERT_EQ(setenv("SEAM_NO_UPROBE_MULTI", "1", 1), 0);
  SeamRun seam(dir.path(),
               {dir.write("r.seam", kEverySync), "--pid", std::to_string(caller.pid()), "--listen", "off"});
  unsetenv("SEAM_NO_UPROBE_MULTI");
  wait_ready(seam);
  std::map<std::string, int> links = link_types(seam.pid());
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(10)));
  EXPECT_TRUE(wait_until([&] { return alerts_from(seam, caller.pid()) >= 3; }, std::chrono::seconds(5)));
  EXPECT_EQ(seam.stop(), 0);
  EXPECT_EQ(alerts_from(seam, caller.pid()), 3u);
  EXPECT_EQ(links.count("uprobe_multi") + links.count("uretprobe_multi"), 0u) << seam.stderr_text();
  // The entry and return probes of cudaStreamSynchronize and of its _ptsz twin, and the loader hook.
  EXPECT_GE(links["perf"], 5) << seam.stderr_text();
}

}  // namespace
}  // namespace seam::test
