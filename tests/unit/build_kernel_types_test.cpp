// kernel_types_header: only the named kernel types, from the running kernel's BTF.
#include <gtest/gtest.h>

#include <filesystem>

#include "compiler/build/kernel_types.hpp"

namespace seam::build {
namespace {

#define SKIP_WITHOUT_BTF()                       \
  if (!std::filesystem::exists(kVmlinuxBtfPath)) \
  GTEST_SKIP() << kVmlinuxBtfPath << " absent (kernel without BTF)"

TEST(KernelTypes, DefinesPtRegsWithAccessIndex) {
  SKIP_WITHOUT_BTF();
  Result<std::string> header = kernel_types_header({"pt_regs"});
  ASSERT_TRUE(header) << header.error();
  const std::string& h = *header;
  EXPECT_NE(h.find("struct pt_regs {"), std::string::npos);
  EXPECT_NE(h.find("preserve_access_index"), std::string::npos);
  EXPECT_NE(h.find("#pragma clang attribute pop"), std::string::npos);
  EXPECT_NE(h.find("BPF_RB_NO_WAKEUP"), std::string::npos) << "base enums missing";
  EXPECT_NE(h.find("typedef unsigned int __u32;"), std::string::npos);
  EXPECT_EQ(h.find("struct task_struct {"), std::string::npos) << "pulled in an unnamed type";
}

TEST(KernelTypes, AcceptsStructPrefixAndReportsUnknownNames) {
  SKIP_WITHOUT_BTF();
  Result<std::string> sched = kernel_types_header({"struct trace_event_raw_sched_switch"});
  ASSERT_TRUE(sched) << sched.error();
  EXPECT_NE(sched->find("struct trace_event_raw_sched_switch {"), std::string::npos);
  Result<std::string> unknown = kernel_types_header({"no_such_kernel_type_xyz"});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error(), "'no_such_kernel_type_xyz' is not a type in this kernel's BTF");
  EXPECT_EQ(unknown.code(), ErrorCode::NotFound);
}

TEST(KernelTypes, SizesOfTypicalHeaders) {
  SKIP_WITHOUT_BTF();
  auto size_of = [](const Result<std::string>& header) { return header ? header->size() : 0; };
  size_t regs = size_of(kernel_types_header({"pt_regs"}));
  size_t sched = size_of(kernel_types_header({"trace_event_raw_sched_switch"}));
  size_t task = size_of(kernel_types_header({"task_struct"}));
  size_t full = size_of(full_kernel_types_header());
  std::printf("[bench] kernel_types.h bytes: pt_regs %zu, sched_switch %zu, task_struct %zu, all %zu\n", regs,
              sched, task, full);
  EXPECT_GT(regs, 0u);
  EXPECT_LT(task, full / 10) << "task_struct should pull far less than the whole BTF";
  EXPECT_LT(task, full);
}

TEST(KernelTypes, BtfIdentityIsStable) {
  SKIP_WITHOUT_BTF();
  EXPECT_EQ(kernel_btf_identity().size(), 32u);
  EXPECT_EQ(kernel_btf_identity(), kernel_btf_identity());
}

}  // namespace
}  // namespace seam::build
