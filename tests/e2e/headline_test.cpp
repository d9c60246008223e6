// The design card's own example, end to end on real processes:
//   use cuda, python
//   cudaStreamSynchronize > 10ms while gil_held -> alert with ustack
// fires for a call made with the GIL held (ctypes.PyDLL) and stays silent when the same call
// releases it (ctypes.CDLL) or is fast.
#include <gtest/gtest.h>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

constexpr const char* kRule =
    "use cuda, python\n"
    "cudaStreamSynchronize > 10ms while gil_held -> alert with ustack\n";

// Loads the fixture, says "ready", waits for "go", then makes the calls it is told to:
// argv: LIB then pairs of (held|released, microseconds).
constexpr const char* kCaller = R"(
import ctypes, sys
lib = sys.argv[1]
held, released = ctypes.PyDLL(lib), ctypes.CDLL(lib)
for l in (held, released):
    l.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
print("ready", flush=True)
sys.stdin.readline()
args = sys.argv[2:]
for how, us in zip(args[0::2], args[1::2]):
    (held if how == "held" else released).cudaStreamSynchronize(ctypes.c_void_p(int(us)))
print("done", flush=True)
)";

class Headline : public ::testing::Test {
 protected:
  // Runs the caller with `calls` under seam and returns the alerts of the headline rule once
  // `expected` of them have arrived (or the deadline passed), after seam has stopped.
  std::vector<nlohmann::json> run_calls(const std::vector<std::string>& calls, size_t expected) {
    std::vector<std::string> argv = {test_python(), "-c", kCaller,
                                     std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12"};
    argv.insert(argv.end(), calls.begin(), calls.end());
    Child caller(argv);
    EXPECT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
    std::string rules = dir_.write("headline.seam", kRule);
    SeamRun seam(dir_.path(), {rules, "--output", "stdout", "--pid", std::to_string(caller.pid())});
    EXPECT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", std::chrono::seconds(30)))
        << seam.stderr_text();
    // gil_held is read from the interpreter's memory: seam says so once it knows where.
    EXPECT_TRUE(seam.wait_for_notice("interpreter", "reading the GIL of CPython", std::chrono::seconds(10)))
        << seam.stderr_text();
    caller.send_line("go");
    EXPECT_TRUE(caller.wait_for_line("done", std::chrono::seconds(20)));
    EXPECT_EQ(caller.wait(), 0);
    wait_until([&] { return seam.alerts().size() >= expected; }, std::chrono::seconds(10));
    EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
    stdout_text_ = seam.stdout_text();
    stderr_text_ = seam.stderr_text();
    return seam.alerts();
  }
  TempDir dir_;
  std::string stdout_text_, stderr_text_;
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

bool stack_has(const nlohmann::json& alert, const std::string& symbol) {
  if (!alert.contains("ustack")) return false;
  for (const nlohmann::json& frame : alert["ustack"])
    if (frame.value("symbol", "") == symbol) return true;
  return false;
}

TEST_F(Headline, FiresForEachSlowSyncWithTheGilHeld) {
  SEAM_REQUIRE_ROOT();
  std::vector<std::string> calls;
  for (int i = 0; i < 5; ++i) calls.insert(calls.end(), {"held", "20000"});
  std::vector<nlohmann::json> alerts = run_calls(calls, 5);
  ASSERT_EQ(alerts.size(), 5u);
  for (const nlohmann::json& a : alerts) {
    EXPECT_TRUE(stack_has(a, "cudaStreamSynchronize")) << a.dump();
    EXPECT_GE(a["fields"].value("duration", 0), 10'000'000) << a.dump();
    EXPECT_EQ(a["ustack"][0].value("symbol", ""), "cudaStreamSynchronize") << a.dump();
  }
  // The readable form: one line per alert, the stack indented below it, the probed call first.
  EXPECT_EQ(count(stdout_text_, " warning cudaStreamSynchronize_L2: cuda.stream_sync took "), 5u)
      << stdout_text_;
  EXPECT_EQ(count(stdout_text_, "    #0 0x"), 5u) << stdout_text_;
  EXPECT_EQ(count(stdout_text_, "cudaStreamSynchronize+0x0 ("), 5u) << stdout_text_;
}

TEST_F(Headline, SilentWhenTheCallReleasesTheGil) {
  SEAM_REQUIRE_ROOT();
  // Five slow syncs without the GIL, then one with it: only the last may fire, and its arrival
  // proves the five before it were seen and judged.
  std::vector<std::string> calls;
  for (int i = 0; i < 5; ++i) calls.insert(calls.end(), {"released", "20000"});
  calls.insert(calls.end(), {"held", "20000"});
  std::vector<nlohmann::json> alerts = run_calls(calls, 1);
  EXPECT_EQ(alerts.size(), 1u);
}

TEST_F(Headline, SilentWhenTheSyncIsFast) {
  SEAM_REQUIRE_ROOT();
  std::vector<std::string> calls;
  for (int i = 0; i < 5; ++i) calls.insert(calls.end(), {"held", "2000"});
  calls.insert(calls.end(), {"held", "20000"});
  std::vector<nlohmann::json> alerts = run_calls(calls, 1);
  EXPECT_EQ(alerts.size(), 1u);
}

// Kernels without task-local storage for uprobe programs get LRU hash maps keyed by thread id:
// the same rule, the same verdicts (the span and the GIL state both go through the fallback).
TEST_F(Headline, SameVerdictsWithLruHashMapsWhereTaskStorageIsUnavailable) {
  SEAM_REQUIRE_ROOT();
  ASSERT_EQ(setenv("SEAM_NO_TASK_STORAGE", "1", 1), 0);
  std::vector<nlohmann::json> alerts = run_calls({"released", "20000", "held", "2000", "held", "20000"}, 1);
  unsetenv("SEAM_NO_TASK_STORAGE");
  EXPECT_EQ(alerts.size(), 1u);
  EXPECT_NE(stderr_text_.find("per-thread maps fall back to LRU hashes: SEAM_NO_TASK_STORAGE is set"),
            std::string::npos)
      << stderr_text_;
}

}  // namespace
}  // namespace seam::test
