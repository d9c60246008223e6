// python.gil_held read from the interpreter's memory (runtime/python/, bpf-templates/py_gil.h) on
// every CPython 3.8 to 3.13 under /root/.pyenv/versions and on Debian's static, stripped
// /usr/bin/python3.11. The rule file uses gil_held alone, so seam puts no probe on libpython:
// slow syncs made with the GIL held (ctypes.PyDLL) alert, those that release it (ctypes.CDLL)
// do not, with and without a CPU-bound second thread that makes the eval loop switch the GIL
// back and forth (forced switches, which no exported function sees).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

// Two held and two released 20 ms syncs alone, then the same while a thread spins in Python.
constexpr const char* kCaller = R"(
import ctypes, sys, threading
lib = sys.argv[1]
held, released = ctypes.PyDLL(lib), ctypes.CDLL(lib)
for l in (held, released):
    l.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
print("ready", flush=True)
sys.stdin.readline()
def syncs():
    for how in ("held", "released", "held", "released"):
        (held if how == "held" else released).cudaStreamSynchronize(ctypes.c_void_p(20000))
syncs()
stop = False
spinning = threading.Event()
def spin():
    spinning.set()
    n = 0
    while not stop:
        n += 1
s = threading.Thread(target=spin)
s.start()
spinning.wait()
syncs()
stop = True
s.join()
print("done", flush=True)
)";

constexpr const char* kRules =
    "use cuda, python\n"
    "rule headline on cuda.stream_sync where duration > 10ms while python.gil_held\n"
    "    alert warning \"sync {duration} with the GIL held\"\n";

void check_gil_from_memory(const std::string& python, const std::string& version) {
  TempDir dir;
  Child caller({python, "-c", kCaller, std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10))) << python;
  const pid_t pid = caller.pid();  // wait() forgets it
  std::string rules = dir.write("gil.seam", kRules);
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller.pid())});
  ASSERT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", std::chrono::seconds(30)))
      << seam.stderr_text();
  ASSERT_TRUE(
      seam.wait_for_notice("interpreter", "reading the GIL of CPython " + version, std::chrono::seconds(10)))
      << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(20)));
  EXPECT_EQ(caller.wait(), 0);
  wait_until([&] { return seam.alerts("headline").size() >= 4; }, std::chrono::seconds(10));
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::vector<nlohmann::json> syncs = seam.alerts("headline");
  ASSERT_EQ(syncs.size(), 4u) << python << "\n" << seam.stderr_text();
  for (const nlohmann::json& sync : syncs) {
    EXPECT_EQ(sync.value("tid", 0), pid) << "the main thread makes every sync: " << sync.dump();
    EXPECT_GE(sync["fields"].value("duration", 0), 20'000'000) << sync.dump();
  }
  // Nothing is probed on the interpreter's GIL path: no libpython attachment at all.
  for (const nlohmann::json& n : seam.notices("attached"))
    EXPECT_EQ(n.dump().find("python3"), std::string::npos) << n.dump();
  EXPECT_TRUE(seam.notices("interpreter-unsupported").empty()) << seam.stderr_text();
}

class PythonGilFromMemory : public ::testing::TestWithParam<const char*> {};

TEST_P(PythonGilFromMemory, HeldAndReleasedWithAndWithoutSwitches) {
  SEAM_REQUIRE_ROOT();
  std::string minor = GetParam();
  std::string home;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/root/.pyenv/versions", ec))
    if (entry.path().filename().string().rfind(minor + ".", 0) == 0) home = entry.path().string();
  if (home.empty()) GTEST_SKIP() << "Python " << minor << " is not installed under /root/.pyenv/versions";
  check_gil_from_memory(home + "/bin/python" + minor, minor);
}

INSTANTIATE_TEST_SUITE_P(Pyenv, PythonGilFromMemory,
                         ::testing::Values("3.8", "3.9", "3.10", "3.11", "3.12", "3.13"),
                         [](const auto& info) {
                           std::string name = std::string("Python") + info.param;
                           name.erase(std::remove(name.begin(), name.end(), '.'), name.end());
                           return name;
                         });

TEST(PythonGilFromMemoryStatic, DebianPython311) {
  SEAM_REQUIRE_ROOT();
  const std::string python = "/usr/bin/python3.11";
  if (!std::filesystem::exists(python)) GTEST_SKIP() << python << " is not installed";
  check_gil_from_memory(python, "3.11");
}

// A Python seam cannot read (3.7 has no layout in the table) gets a notice naming it and its
// path, and gil_held stays false there: no alert, never a guess.
TEST(PythonGilFromMemoryUnsupported, Python37GetsANoticeAndNoAlert) {
  SEAM_REQUIRE_ROOT();
  std::string home;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/root/.pyenv/versions", ec))
    if (entry.path().filename().string().rfind("3.7.", 0) == 0) home = entry.path().string();
  if (home.empty()) GTEST_SKIP() << "Python 3.7 is not installed under /root/.pyenv/versions";
  TempDir dir;
  Child caller({home + "/bin/python3.7", "-c", kCaller, std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  std::string rules = dir.write("gil.seam", kRules);
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller.pid())});
  ASSERT_TRUE(seam.wait_for_notice(
      "interpreter-unsupported", "runs CPython 3.7 (" + home + "/lib/libpython3.7", std::chrono::seconds(30)))
      << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", std::chrono::seconds(30)));
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(20)));
  EXPECT_EQ(caller.wait(), 0);
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  EXPECT_TRUE(seam.alerts("headline").empty()) << seam.stderr_text();
}

}  // namespace
}  // namespace seam::test
