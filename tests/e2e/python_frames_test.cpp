// Python frames in alerts (`with pystack`, `with stack`) on every CPython 3.8 to 3.13 installed
// under /root/.pyenv/versions and on Debian's static, stripped /usr/bin/python3.11. A script
// three functions deep calls the fixture's cudaStreamSynchronize: through ctypes.PyDLL (the GIL
// held) the headline rule fires, and its Python frames name inner, middle and outer, innermost
// first, with the lines of their calls, then <module>; its mixed stack has the fixture's
// function among the native frames and the same Python frames. Through ctypes.CDLL (the GIL
// released) no alert. A second Python thread spinning through the last call changes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

constexpr const char* kScript = R"(import ctypes, sys, threading
lib = sys.argv[1]
held, released = ctypes.PyDLL(lib), ctypes.CDLL(lib)
for l in (held, released):
    l.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
def outer(how):
    return middle(how)  # outer calls
def middle(how):
    return inner(how)  # middle calls
def inner(how):
    (held if how == "held" else released).cudaStreamSynchronize(ctypes.c_void_p(20000))  # inner calls
print("ready", flush=True)
sys.stdin.readline()
outer("held")  # module calls
outer("released")
stop = False
spinning = threading.Event()
def spin():
    spinning.set()
    while not stop:
        pass
s = threading.Thread(target=spin)
s.start()
spinning.wait()
outer("held")  # module calls again
stop = True
s.join()
print("done", flush=True)
)";

// The 1-based line of the script that contains `marker`.
int line_of(const std::string& marker) {
  std::istringstream in(kScript);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  return -1;
}

constexpr const char* kRules =
    "use cuda, python\n"
    "rule headline on cuda.stream_sync where duration > 10ms while python.gil_held\n"
    "    alert warning \"sync {duration} with the GIL held\" with pystack, stack\n";

std::vector<nlohmann::json> python_frames(const nlohmann::json& stack) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& f : stack)
    if (f.value("kind", "") == "python") out.push_back(f);
  return out;
}

void expect_call_path(const std::vector<nlohmann::json>& frames, const std::string& file, int module_line,
                      const std::string& what) {
  ASSERT_GE(frames.size(), 4u) << what;
  const std::pair<const char*, const char*> want[] = {
      {"inner", "# inner calls"}, {"middle", "# middle calls"}, {"outer", "# outer calls"}};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(frames[i].value("function", ""), want[i].first) << what << " frame " << i;
    EXPECT_EQ(frames[i].value("line", 0), line_of(want[i].second)) << what << " frame " << i;
    EXPECT_EQ(frames[i].value("file", ""), file) << what;
    EXPECT_EQ(frames[i].value("module", ""), "frames") << what;
  }
  EXPECT_EQ(frames[3].value("function", ""), "<module>") << what;
  EXPECT_EQ(frames[3].value("line", 0), module_line) << what;
}

void check_python(const std::string& python, const std::string& runtime_file) {
  TempDir dir;
  std::string script = dir.write("frames.py", kScript);
  Child caller({python, script, std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10))) << python;
  std::string rules = dir.write("frames.seam", kRules);
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller.pid())});
  ASSERT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", std::chrono::seconds(30)))
      << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("interpreter", runtime_file, std::chrono::seconds(10)))
      << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(20)));
  EXPECT_EQ(caller.wait(), 0);
  wait_until([&] { return seam.alerts("headline").size() >= 2; }, std::chrono::seconds(10));
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::vector<nlohmann::json> alerts = seam.alerts("headline");
  ASSERT_EQ(alerts.size(), 2u) << python << ": the CDLL call releases the GIL\n" << seam.stderr_text();
  const int module_lines[] = {line_of("# module calls"), line_of("# module calls again")};
  for (size_t a = 0; a < alerts.size(); ++a) {
    const nlohmann::json& alert = alerts[a];
    std::string what = python + " alert " + std::to_string(a) + ": " + alert.dump();
    ASSERT_TRUE(alert.contains("pystack")) << what;
    expect_call_path(python_frames(alert["pystack"]), script, module_lines[a], what + " (pystack)");
    ASSERT_TRUE(alert.contains("stack")) << what;
    expect_call_path(python_frames(alert["stack"]), script, module_lines[a], what + " (stack)");
    bool fixture = false;
    size_t first_python = alert["stack"].size(), fixture_at = 0;
    for (size_t i = 0; i < alert["stack"].size(); ++i) {
      const nlohmann::json& f = alert["stack"][i];
      if (f.value("kind", "") == "python" && first_python == alert["stack"].size()) first_python = i;
      if (f.value("kind", "") == "native" && f.value("function", "") == "cudaStreamSynchronize") {
        fixture = true;
        fixture_at = i;
      }
    }
    EXPECT_TRUE(fixture) << "the fixture's function among the native frames: " << what;
    EXPECT_LT(fixture_at, first_python) << "the native call is inside the Python frames: " << what;
    EXPECT_FALSE(alert.contains("ustack")) << "`with stack` shows one stack: " << what;
  }
}

class PythonFrames : public ::testing::TestWithParam<const char*> {};

TEST_P(PythonFrames, ThreeFunctionsDeepWithLines) {
  SEAM_REQUIRE_ROOT();
  std::string minor = GetParam();
  std::string home;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/root/.pyenv/versions", ec))
    if (entry.path().filename().string().rfind(minor + ".", 0) == 0) home = entry.path().string();
  if (home.empty()) GTEST_SKIP() << "Python " << minor << " is not installed under /root/.pyenv/versions";
  check_python(home + "/bin/python" + minor, "libpython" + minor + ".so");
}

INSTANTIATE_TEST_SUITE_P(Pyenv, PythonFrames, ::testing::Values("3.8", "3.9", "3.10", "3.11", "3.12", "3.13"),
                         [](const auto& info) {
                           std::string name = std::string("Python") + info.param;
                           name.erase(std::remove(name.begin(), name.end(), '.'), name.end());
                           return name;
                         });

TEST(PythonFramesStatic, DebianPython311) {
  SEAM_REQUIRE_ROOT();
  const std::string python = "/usr/bin/python3.11";
  if (!std::filesystem::exists(python)) GTEST_SKIP() << python << " is not installed";
  check_python(python, "/usr/bin/python3.11");
}

// An interpreter seam does not read (CPython 3.7: before the layouts seam knows) gets a notice
// naming it and its file, and its alerts say that they carry no Python frames: none invented.
TEST(PythonFramesUnsupported, Python37GetsANoticeAndNoFrames) {
  SEAM_REQUIRE_ROOT();
  std::string home;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/root/.pyenv/versions", ec))
    if (entry.path().filename().string().rfind("3.7.", 0) == 0) home = entry.path().string();
  if (home.empty()) GTEST_SKIP() << "Python 3.7 is not installed under /root/.pyenv/versions";
  TempDir dir;
  std::string script = dir.write("frames.py", kScript);
  Child caller({home + "/bin/python3.7", script, std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  const pid_t pid = caller.pid();  // wait() forgets it
  std::string rules = dir.write("frames.seam",
                                "use cuda, python\n"
                                "rule slow on cuda.stream_sync where duration > 10ms\n"
                                "    alert warning \"sync {duration}\" with pystack\n");
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(pid)});
  ASSERT_TRUE(seam.wait_for_notice("interpreter-unsupported", "libpython3.7m.so", std::chrono::seconds(30)))
      << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(20)));
  EXPECT_EQ(caller.wait(), 0);
  wait_until([&] { return seam.alerts("slow").size() >= 3; }, std::chrono::seconds(10));
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::vector<nlohmann::json> notices = seam.notices("interpreter-unsupported");
  ASSERT_FALSE(notices.empty());
  std::string message = notices[0].value("message", "");
  EXPECT_EQ(message.rfind("pystack (", 0), 0u) << message;
  EXPECT_NE(
      message.find(":2): pid " + std::to_string(pid) + " runs CPython 3.7 (" + home +
                   "/lib/libpython3.7m.so.1.0), which seam cannot read: seam reads CPython 3.8 to 3.13: no "
                   "Python frames are shown for it"),
      std::string::npos)
      << message;
  std::vector<nlohmann::json> alerts = seam.alerts("slow");
  ASSERT_EQ(alerts.size(), 3u) << seam.stderr_text();  // held and released alike: no GIL test
  for (const nlohmann::json& alert : alerts)
    EXPECT_EQ(alert["pystack"],
              nlohmann::json::parse(R"([{"kind":"truncated","reason":)"
                                    R"("no Python frames: the process runs no interpreter seam reads"}])"))
        << alert.dump();
}

}  // namespace
}  // namespace seam::test
