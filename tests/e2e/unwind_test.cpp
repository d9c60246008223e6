// `with ustack` without frame pointers: the BPF program copies the top of the user stack and
// the registers, and seam unwinds the copy with call-frame information (runtime/unwind/).
//   - a C program and a copy of the fixture library, both built without frame pointers: the
//     three functions and main are in the stack;
//   - the same through a function with 16 KiB of locals: the stack says where the copy ends
//     and shows nothing past it;
//   - Debian's stripped, static python3.11 calling the fixture through ctypes: the native
//     frames go down through libffi and _ctypes into the interpreter, as perf shows them.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

constexpr const char* kRule =
    "use cuda\n"
    "rule slow_sync\n"
    "    on cudaStreamSynchronize\n"
    "    where duration > 5ms\n"
    "    alert warning \"cudaStreamSynchronize took {duration}\"\n"
    "    with ustack\n"
    "    limit 100 per 1m\n";

std::vector<std::string> functions(const nlohmann::json& stack) {
  std::vector<std::string> out;
  for (const nlohmann::json& f : stack)
    if (f.value("kind", "") == "native") out.push_back(f.value("function", ""));
  return out;
}

std::string truncation(const nlohmann::json& stack) {
  for (const nlohmann::json& f : stack)
    if (f.value("kind", "") == "truncated") return f.value("reason", "");
  return "";
}

class Unwind : public ::testing::Test {
 protected:
  // Runs `argv` (a program that prints "ready", waits for a line, calls, prints "done") under
  // the rule and returns its alerts once `expected` have arrived.
  std::vector<nlohmann::json> run(const std::vector<std::string>& argv, const std::string& library,
                                  size_t expected) {
    Child caller(argv);
    EXPECT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
    std::string rules = dir_.write("unwind.seam", kRule);
    SeamRun seam(dir_.path(), {rules, "--output", "stdout", "--pid", std::to_string(caller.pid())});
    EXPECT_TRUE(seam.wait_for_notice("attached", library, std::chrono::seconds(30))) << seam.stderr_text();
    caller.send_line("go");
    EXPECT_TRUE(caller.wait_for_line("done", std::chrono::seconds(20)));
    EXPECT_EQ(caller.wait(), 0);
    wait_until([&] { return seam.alerts("slow_sync").size() >= expected; }, std::chrono::seconds(10));
    EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
    stdout_text_ = seam.stdout_text();
    return seam.alerts("slow_sync");
  }
  TempDir dir_;
  std::string stdout_text_;
};

const std::string kNofpCaller = std::string(SEAM_FIXTURE_DIR) + "/nofp_caller";

TEST_F(Unwind, FindsFunctionsBuiltWithoutFramePointers) {
  SEAM_REQUIRE_ROOT();
  std::vector<nlohmann::json> alerts = run({kNofpCaller, "2", "20000"}, "nofp/libcudart.so.12", 2);
  ASSERT_EQ(alerts.size(), 2u) << stdout_text_;
  for (const nlohmann::json& a : alerts) {
    std::vector<std::string> f = functions(a["ustack"]);
    ASSERT_GE(f.size(), 5u) << a.dump();
    EXPECT_EQ(std::vector<std::string>(f.begin(), f.begin() + 5),
              (std::vector<std::string>{"cudaStreamSynchronize", "inner", "middle", "outer", "main"}))
        << a.dump();
    EXPECT_EQ(truncation(a["ustack"]), "") << a.dump();  // the whole stack fits in the copy
    for (const nlohmann::json& frame : a["ustack"])
      EXPECT_NE(frame.value("module", ""), "[unknown]") << a.dump();
  }
  EXPECT_NE(stdout_text_.find("outer+0x"), std::string::npos) << stdout_text_;
}

TEST_F(Unwind, AStackDeeperThanTheCopyIsMarkedNotInvented) {
  SEAM_REQUIRE_ROOT();
  std::vector<nlohmann::json> alerts = run({kNofpCaller, "1", "20000", "--deep"}, "nofp/libcudart.so.12", 1);
  ASSERT_EQ(alerts.size(), 1u) << stdout_text_;
  const nlohmann::json& stack = alerts[0]["ustack"];
  // padded's caller (main) is past the 8 KiB: its 16 KiB of locals lie between.
  EXPECT_EQ(functions(stack),
            (std::vector<std::string>{"cudaStreamSynchronize", "inner", "middle", "outer", "padded"}))
      << stack.dump();
  EXPECT_EQ(truncation(stack), "stack copy ends") << stack.dump();
  EXPECT_EQ(stack.back().value("kind", ""), "truncated");
  EXPECT_NE(stdout_text_.find("    [stack copy ends]\n"), std::string::npos) << stdout_text_;
}

// Loads the fixture with ctypes.PyDLL, says "ready", waits, calls it twice.
constexpr const char* kPythonCaller = R"(
import ctypes, sys
lib = ctypes.PyDLL(sys.argv[1])
lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]
print("ready", flush=True)
sys.stdin.readline()
for _ in range(2):
    lib.cudaStreamSynchronize(ctypes.c_void_p(20000))
print("done", flush=True)
)";

TEST_F(Unwind, CtypesCallUnwindsThroughLibffiIntoTheInterpreter) {
  SEAM_REQUIRE_ROOT();
  const std::string python = "/usr/bin/python3.11";  // Debian's: static, stripped, with .eh_frame
  ASSERT_TRUE(std::filesystem::exists(python)) << "scripts/setup-deps.sh installs python3";
  std::vector<nlohmann::json> alerts =
      run({python, "-c", kPythonCaller, std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12"},
          "libcudart.so.12", 2);
  ASSERT_EQ(alerts.size(), 2u) << stdout_text_;
  for (const nlohmann::json& a : alerts) {
    const nlohmann::json& stack = a["ustack"];
    ASSERT_GE(stack.size(), 1u);
    EXPECT_EQ(stack[0].value("function", ""), "cudaStreamSynchronize") << stack.dump();
    bool ffi = false, ctypes = false, eval = false;
    for (const nlohmann::json& f : stack) {
      std::string module = f.value("module", "");
      ffi |= module.find("libffi.so") != std::string::npos;
      ctypes |= module.find("_ctypes") != std::string::npos;
      eval |= module == python && f.value("function", "") == "_PyEval_EvalFrameDefault";
      if (f.value("kind", "") == "native") {
        EXPECT_NE(module, "[unknown]") << stack.dump();
      }
    }
    EXPECT_TRUE(ffi) << stack.dump();
    EXPECT_TRUE(ctypes) << stack.dump();
    EXPECT_TRUE(eval) << stack.dump();
    EXPECT_GE(functions(stack).size(), 10u) << stack.dump();
  }
}

}  // namespace
}  // namespace seam::test
