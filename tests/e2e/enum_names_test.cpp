// Enum-typed fields end to end: stdlib/cuda.seam declares cudaMemcpyKind and cudaError (written
// by `seam stdlib gen` from the CUDA headers); a cudaMemcpy through the fixture libcudart prints
// its kind and result by name on stdout and in JSON, and a rule compares the kind with a name.
#include <gtest/gtest.h>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

constexpr const char* kRules =
    "use cuda\n"
    "rule copies on cuda.memcpy alert info \"copy {kind} returned {ret}\" with kind, ret\n"
    "rule device_to_host on cuda.memcpy where kind == cudaMemcpyDeviceToHost alert info \"back\"\n";

// Loads the fixture library, says "ready", waits for "go", copies with each kind given.
constexpr const char* kCaller = R"(
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
print("ready", flush=True)
sys.stdin.readline()
for kind in sys.argv[2:]:
    lib.cudaMemcpy(None, None, 16, int(kind))
print("done", flush=True)
)";

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(EnumNames, MemcpyKindAndResultPrintByNameAndRulesCompareNames) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Child caller(
      {test_python(), "-c", kCaller, std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12", "1", "2", "7"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  std::string rules = dir.write("enums.seam", kRules);
  SeamRun seam(dir.path(), {rules, "--output", "stdout", "--pid", std::to_string(caller.pid())});
  ASSERT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", std::chrono::seconds(30)))
      << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(20)));
  EXPECT_EQ(caller.wait(), 0);
  wait_until([&] { return seam.alerts().size() >= 4; }, std::chrono::seconds(10));
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();

  std::vector<nlohmann::json> copies = seam.alerts("copies");
  ASSERT_EQ(copies.size(), 3u) << seam.stderr_text();
  EXPECT_EQ(copies[0]["message"], "copy cudaMemcpyHostToDevice returned cudaSuccess");
  EXPECT_EQ(copies[0]["fields"]["kind"], "cudaMemcpyHostToDevice") << copies[0].dump();
  EXPECT_EQ(copies[0]["fields"]["ret"], "cudaSuccess") << copies[0].dump();
  EXPECT_EQ(copies[1]["fields"]["kind"], "cudaMemcpyDeviceToHost") << copies[1].dump();
  // 7 is no cudaMemcpyKind: the number; the library's answer has a name.
  EXPECT_EQ(copies[2]["message"], "copy 7 returned cudaErrorInvalidMemcpyDirection");
  EXPECT_EQ(copies[2]["fields"]["kind"], 7) << copies[2].dump();
  EXPECT_EQ(copies[2]["fields"]["ret"], "cudaErrorInvalidMemcpyDirection") << copies[2].dump();

  std::vector<nlohmann::json> back = seam.alerts("device_to_host");
  EXPECT_EQ(back.size(), 1u);

  std::string out = seam.stdout_text();
  EXPECT_EQ(count(out, " kind=cudaMemcpyHostToDevice"), 1u) << out;
  EXPECT_EQ(count(out, " kind=cudaMemcpyDeviceToHost"), 1u) << out;
  EXPECT_EQ(count(out, " kind=7"), 1u) << out;
  EXPECT_EQ(count(out, " ret=cudaErrorInvalidMemcpyDirection"), 1u) << out;
}

}  // namespace
}  // namespace seam::test
