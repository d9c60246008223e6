// A metric `while python.gil_held` counts exactly the calls made with the GIL held: a Python
// caller makes 3 syncs through ctypes.PyDLL (the GIL stays held) and 5 through ctypes.CDLL (it is
// released around the call), the second half of them while another thread spins in Python so the
// eval loop hands the GIL back and forth. The counts come from the kernel's map, in the summary.
#include <gtest/gtest.h>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kCaller = R"(
import ctypes, sys, threading
lib = sys.argv[1]
held, released = ctypes.PyDLL(lib), ctypes.CDLL(lib)
for l in (held, released):
    l.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
print("ready", flush=True)
sys.stdin.readline()
order = ("held", "released", "released", "held", "released", "released", "held", "released")
def syncs(part):
    for how in part:
        (held if how == "held" else released).cudaStreamSynchronize(ctypes.c_void_p(2000))
syncs(order[:4])
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
syncs(order[4:])
stop = True
s.join()
print("done", flush=True)
)";

TEST(MetricGil, WhileGilHeldCountsExactlyTheHeldCalls) {
  SEAM_REQUIRE_ROOT();
  const std::string python = test_python();
  TempDir dir;
  std::string rules =
      dir.write("gil.seam",
                "use cuda, python\n"
                "metric held on cuda.stream_sync while python.gil_held count\n"
                "metric released on cuda.stream_sync while not python.gil_held count by pid\n");
  Child caller({python, "-c", kCaller, std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12"});
  ASSERT_TRUE(caller.wait_for_line("ready", 10s)) << python;
  const std::string pid = std::to_string(caller.pid());  // wait() forgets it
  SeamRun seam(dir.path(), {rules, "--pid", pid, "--listen", "off", "--summary"});
  ASSERT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", 30s)) << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("interpreter", "reading the GIL of CPython", 10s)) << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", 20s));
  EXPECT_EQ(caller.wait(), 0);
  // --pid ends the run when the caller exits; --summary prints every metric then.
  ASSERT_TRUE(
      wait_until([&] { return seam.stdout_text().find("metric released") != std::string::npos; }, 20s))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::string summary = seam.stdout_text();
  EXPECT_NE(summary.find("metric held (count) from " + rules + ":2\n  (all): 3\n"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("metric released (count by pid) from " + rules + ":3\n  pid=" + pid + ": 5\n"),
            std::string::npos)
      << summary;
}

}  // namespace
}  // namespace seam::test
