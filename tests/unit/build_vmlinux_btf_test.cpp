// acquire_vmlinux_btf and KeepVmlinuxBtf: one parse of the kernel's BTF shared by the builds of
// a cold start, kept only while a keeper lives, and never parsed because of one.
#include <gtest/gtest.h>

#include <bpf/btf.h>

#include <filesystem>
#include <memory>

#include "compiler/build/kernel_types.hpp"
#include "compiler/build/vmlinux_btf.hpp"

namespace seam::build {
namespace {

#define SKIP_WITHOUT_BTF()                       \
  if (!std::filesystem::exists(kVmlinuxBtfPath)) \
  GTEST_SKIP() << kVmlinuxBtfPath << " absent (kernel without BTF)"

TEST(VmlinuxBtf, WithoutAKeeperTheLastUserFreesTheParse) {
  SKIP_WITHOUT_BTF();
  {
    Result<std::shared_ptr<const btf>> b = acquire_vmlinux_btf();
    ASSERT_TRUE(b) << b.error();
    EXPECT_GT(btf__type_cnt(b->get()), 1000U);
  }
  EXPECT_FALSE(vmlinux_btf_kept());
}

TEST(VmlinuxBtf, AKeeperParsesNothingAndKeepsWhatIsParsedUntilItGoes) {
  SKIP_WITHOUT_BTF();
  {
    KeepVmlinuxBtf keep;
    EXPECT_FALSE(vmlinux_btf_kept()) << "a keeper alone must not parse (a warm start reads no BTF)";
    const btf* first = nullptr;
    {
      Result<std::shared_ptr<const btf>> b = acquire_vmlinux_btf();
      ASSERT_TRUE(b) << b.error();
      first = b->get();
    }
    EXPECT_TRUE(vmlinux_btf_kept());
    // The kept parse is alive, so the same pointer proves the second user got it, not a new one.
    Result<std::shared_ptr<const btf>> again = acquire_vmlinux_btf();
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(again->get(), first);
    // Two types headers in a row under one keeper: both from that parse.
    EXPECT_TRUE(kernel_types_header({"pt_regs"}));
    EXPECT_TRUE(kernel_types_header({"task_struct"}));
    EXPECT_TRUE(vmlinux_btf_kept());
  }
  EXPECT_FALSE(vmlinux_btf_kept());
}

TEST(VmlinuxBtf, KeepersNestAndOneMadeWhileAParseIsHeldKeepsIt) {
  SKIP_WITHOUT_BTF();
  Result<std::shared_ptr<const btf>> held = acquire_vmlinux_btf();
  ASSERT_TRUE(held) << held.error();
  auto outer = std::make_unique<KeepVmlinuxBtf>();
  auto inner = std::make_unique<KeepVmlinuxBtf>();
  EXPECT_TRUE(acquire_vmlinux_btf());  // finds the held parse: now kept as well
  held = Error{"let go"};
  EXPECT_TRUE(vmlinux_btf_kept());
  inner.reset();
  EXPECT_TRUE(vmlinux_btf_kept()) << "the outer keeper still lives";
  outer.reset();
  EXPECT_FALSE(vmlinux_btf_kept());
}

}  // namespace
}  // namespace seam::build
