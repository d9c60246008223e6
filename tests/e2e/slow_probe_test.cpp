// Per attached function, seam says at attach time when the kernel must single-step its first
// instruction (~20 us a hit instead of ~0.3-0.6 us): the tests' fixture is built with -O1, where
// cudaLaunchKernel starts with `mov $0,%eax`. The expectation comes from the fixture's own bytes,
// so the test still means something if a compiler changes the entry.
#include <gtest/gtest.h>

#include "runtime/elf/elf_file.hpp"
#include "runtime/elf/resolve.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

const std::string kCudart = std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12";

runtime::elf::FirstInstruction first_instruction(const std::string& symbol) {
  auto file = runtime::elf::ElfFile::open(kCudart);
  EXPECT_TRUE(file.ok());
  if (!file.ok()) return runtime::elf::FirstInstruction::Unknown;
  std::vector<runtime::elf::SymbolHit> hits = runtime::elf::resolve(*file, symbol);
  EXPECT_EQ(hits.size(), 1u) << symbol;
  return hits.empty() ? runtime::elf::FirstInstruction::Unknown : hits[0].first;
}

bool slow_notice_names(const SeamRun& seam, const std::string& symbol) {
  for (const nlohmann::json& n : seam.notices("slow-probe"))
    if (n.value("message", "").find("uprobe on " + symbol + " in ") != std::string::npos) return true;
  return false;
}

TEST(SlowProbe, ASingleSteppedEntryIsReportedAtAttachAndAnEmulatedOneIsNot) {
  SEAM_REQUIRE_ROOT();
  ASSERT_EQ(first_instruction("cudaLaunchKernel"), runtime::elf::FirstInstruction::SingleStep);
  runtime::elf::FirstInstruction sync = first_instruction("cudaStreamSynchronize");
  ASSERT_TRUE(sync == runtime::elf::FirstInstruction::Push || sync == runtime::elf::FirstInstruction::Nop5)
      << runtime::elf::describe(sync);
  TempDir dir;
  Child caller({std::string(SEAM_FIXTURE_DIR) + "/cuda_caller", kCudart, "0", "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  std::string rules = dir.write("r.seam",
                                "use cuda\n"
                                "rule launches on cuda.launch alert info \"launch\"\n"
                                "rule syncs on cuda.stream_sync alert info \"sync\"\n");
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller.pid())});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
      << seam.stderr_text();
  // The warning comes with the attach, before ready.
  EXPECT_TRUE(slow_notice_names(seam, "cudaLaunchKernel")) << seam.stderr_text();
  EXPECT_FALSE(slow_notice_names(seam, "cudaStreamSynchronize")) << seam.stderr_text();
  for (const nlohmann::json& n : seam.notices("slow-probe"))
    EXPECT_NE(n.value("message", "").find("libcudart.so.12"), std::string::npos) << n.dump();
  caller.send_line("go");
  EXPECT_TRUE(caller.wait_for_line("done", std::chrono::seconds(10)));
  EXPECT_EQ(seam.stop(), 0);
}

}  // namespace
}  // namespace seam::test
