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
  std::string error;
  std::string h = kernel_types_header({"pt_regs"}, &error);
  ASSERT_FALSE(h.empty()) << error;
  EXPECT_NE(h.find("struct pt_regs {"), std::string::npos);
  EXPECT_NE(h.find("preserve_access_index"), std::string::npos);
  EXPECT_NE(h.find("#pragma clang attribute pop"), std::string::npos);
  EXPECT_NE(h.find("BPF_RB_NO_WAKEUP"), std::string::npos) << "base enums missing";
  EXPECT_NE(h.find("typedef unsigned int __u32;"), std::string::npos);
  EXPECT_EQ(h.find("struct task_struct {"), std::string::npos) << "pulled in an unnamed type";
}

TEST(KernelTypes, AcceptsStructPrefixAndReportsUnknownNames) {
  SKIP_WITHOUT_BTF();
  std::string error;
  EXPECT_NE(kernel_types_header({"struct trace_event_raw_sched_switch"}, &error)
                .find("struct trace_event_raw_sched_switch {"),
            std::string::npos)
      << error;
  EXPECT_TRUE(kernel_types_header({"no_such_kernel_type_xyz"}, &error).empty());
  EXPECT_NE(error.find("no_such_kernel_type_xyz"), std::string::npos) << error;
}

TEST(KernelTypes, SizesOfTypicalHeaders) {
  SKIP_WITHOUT_BTF();
  std::string error;
  size_t regs = kernel_types_header({"pt_regs"}, &error).size();
  size_t sched = kernel_types_header({"trace_event_raw_sched_switch"}, &error).size();
  size_t task = kernel_types_header({"task_struct"}, &error).size();
  size_t full = full_kernel_types_header(&error).size();
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
