// The python module on every CPython 3.8 to 3.13 installed under /root/.pyenv/versions (shared
// libpython, take_gil and drop_gil in its .symtab) and on Debian's /usr/bin/python3 (libpython
// linked into the executable, stripped: only the exported PyEval_SaveThread/RestoreThread).
// For each: the headline rule (cudaStreamSynchronize > 10ms while gil_held) fires exactly for
// the slow syncs made with the GIL held (ctypes.PyDLL), never for those that release it
// (ctypes.CDLL), and threads kept waiting for the GIL are seen waiting: python.gil_restore
// (PyEval_RestoreThread) everywhere, python.gil_wait (take_gil) where the symbol table has it.
// 3.8 inlines take_gil into PyEval_RestoreThread, so there only gil_restore sees a thread
// coming back from C code; the eval loop calls take_gil itself in every version.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

// A fast sync that releases the GIL first (on a stripped interpreter gil_held learns that the
// thread holds the GIL only when C code calls the exported PyEval_RestoreThread: the interpreter's
// own calls inside the executable are not probed). Then two slow syncs with the GIL held, two
// without. Then the main thread holds the GIL through a 60 ms PyDLL sync while a Python thread
// spins (it waits in take_gil, from the eval loop) and another returns from a 20 ms CDLL sync (it
// waits in PyEval_RestoreThread).
constexpr const char* kCaller = R"(
import ctypes, sys, threading
lib = sys.argv[1]
held, released = ctypes.PyDLL(lib), ctypes.CDLL(lib)
for l in (held, released):
    l.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
print("ready", flush=True)
sys.stdin.readline()
released.cudaStreamSynchronize(ctypes.c_void_p(0))
for how in ("held", "released", "held", "released"):
    (held if how == "held" else released).cudaStreamSynchronize(ctypes.c_void_p(20000))
stop = False
spinning, inside = threading.Event(), threading.Event()
def spin():
    spinning.set()
    while not stop:
        pass
def waiter():
    inside.set()
    released.cudaStreamSynchronize(ctypes.c_void_p(20000))
s = threading.Thread(target=spin)
s.start()
spinning.wait()
w = threading.Thread(target=waiter)
w.start()
inside.wait()
held.cudaStreamSynchronize(ctypes.c_void_p(60000))
stop = True
s.join()
w.join()
print("done", flush=True)
)";

constexpr const char* kRules =
    "use cuda, python\n"
    "rule headline on cuda.stream_sync where duration > 10ms while python.gil_held\n"
    "    alert warning \"sync {duration} with the GIL held\"\n"
    "rule eval_loop_wait on python.gil_wait where duration > 30ms alert info \"waited {duration}\"\n"
    "rule restore_wait on python.gil_restore where duration > 30ms alert info \"waited {duration}\"\n";

// `with_take_gil`: take_gil is in the symbol table, so the eval loop's wait is seen too.
void check_python(const std::string& python, const std::string& runtime_file, bool with_take_gil) {
  TempDir dir;
  Child caller({python, "-c", kCaller, std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10))) << python;
  std::string rules = dir.write("python.seam", kRules);
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller.pid())});
  ASSERT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", std::chrono::seconds(30)))
      << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("attached", runtime_file, std::chrono::seconds(10))) << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(20)));
  EXPECT_EQ(caller.wait(), 0);
  wait_until(
      [&] {
        return seam.alerts("headline").size() >= 3 && !seam.alerts("restore_wait").empty() &&
               (!with_take_gil || !seam.alerts("eval_loop_wait").empty());
      },
      std::chrono::seconds(10));
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::vector<nlohmann::json> syncs = seam.alerts("headline");
  ASSERT_EQ(syncs.size(), 3u) << python << "\n" << seam.stderr_text();
  EXPECT_GE(syncs[0]["fields"].value("duration", 0), 20'000'000);
  EXPECT_GE(syncs[1]["fields"].value("duration", 0), 20'000'000);
  EXPECT_GE(syncs[2]["fields"].value("duration", 0), 60'000'000);
  for (const char* rule : {"restore_wait", "eval_loop_wait"}) {
    std::vector<nlohmann::json> waits = seam.alerts(rule);
    if (!with_take_gil && std::string(rule) == "eval_loop_wait") {
      EXPECT_EQ(waits.size(), 0u) << "no take_gil to probe in " << python;
      continue;
    }
    ASSERT_GE(waits.size(), 1u) << rule << " " << python << "\n" << seam.stderr_text();
    for (const nlohmann::json& wait : waits) {
      EXPECT_GE(wait["fields"].value("duration", 0), 30'000'000) << wait.dump();
      EXPECT_NE(wait.value("tid", 0), caller.pid()) << "the main thread holds the GIL; others wait";
    }
  }
}

class PythonVersions : public ::testing::TestWithParam<const char*> {};

TEST_P(PythonVersions, HeadlineAndGilWait) {
  SEAM_REQUIRE_ROOT();
  std::string minor = GetParam();
  std::string home;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/root/.pyenv/versions", ec))
    if (entry.path().filename().string().rfind(minor + ".", 0) == 0) home = entry.path().string();
  if (home.empty()) GTEST_SKIP() << "Python " << minor << " is not installed under /root/.pyenv/versions";
  check_python(home + "/bin/python" + minor, "libpython" + minor + ".so", true);
}

INSTANTIATE_TEST_SUITE_P(Pyenv, PythonVersions,
                         ::testing::Values("3.8", "3.9", "3.10", "3.11", "3.12", "3.13"),
                         [](const auto& info) {
                           std::string name = std::string("Python") + info.param;
                           name.erase(std::remove(name.begin(), name.end(), '.'), name.end());
                           return name;
                         });

// Debian's python3.11 links libpython into the executable and is stripped: `exe "python3*"`
// matches the program itself, and only the exported functions are there to probe.
TEST(PythonStatic, DebianPython3HeadlineAndGilRestore) {
  SEAM_REQUIRE_ROOT();
  const std::string python = "/usr/bin/python3.11";
  if (!std::filesystem::exists(python)) GTEST_SKIP() << python << " is not installed";
  check_python(python, "/usr/bin/python3.11", false);
}

}  // namespace
}  // namespace seam::test
