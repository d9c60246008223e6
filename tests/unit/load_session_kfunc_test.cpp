// The uprobe session's kfunc call (runtime/load/session_kfunc.hpp): codegen's placeholder helper
// calls become kfunc calls and nothing else changes; the kfunc's id is the one libbpf's full parse
// of the kernel's BTF finds.
#include <bpf/btf.h>
#include <gtest/gtest.h>
#include <linux/btf.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include "compiler/plan/sites.hpp"
#include "runtime/load/session_kfunc.hpp"

namespace seam::runtime {
namespace {

bpf_insn call(uint8_t src_reg, int32_t imm) {
  bpf_insn insn{};
  insn.code = BPF_JMP | BPF_CALL;
  insn.src_reg = src_reg;
  insn.imm = imm;
  return insn;
}

bpf_insn mov_imm(int32_t imm) {
  bpf_insn insn{};
  insn.code = BPF_ALU64 | BPF_MOV | BPF_K;
  insn.imm = imm;
  return insn;
}

TEST(SessionKfunc, OnlyThePlaceholderHelperCallsBecomeKfuncCalls) {
  const int32_t placeholder = plan::kSessionIsReturnPlaceholder;
  std::vector<bpf_insn> insns = {call(0, placeholder), mov_imm(placeholder), call(0, 14),
                                 call(BPF_PSEUDO_CALL, placeholder), call(0, placeholder)};
  const std::vector<bpf_insn> before = insns;
  EXPECT_EQ(rewrite_placeholder_calls(insns, placeholder, 65514), 2u);
  for (size_t at : {0u, 4u}) {
    EXPECT_EQ(insns[at].code, BPF_JMP | BPF_CALL) << at;
    EXPECT_EQ(insns[at].src_reg, BPF_PSEUDO_KFUNC_CALL) << at;
    EXPECT_EQ(insns[at].off, 0) << at;
    EXPECT_EQ(insns[at].imm, 65514) << at;
  }
  // A mov of the same number, another helper and a call of a subprogram stay as they were.
  for (size_t at : {1u, 2u, 3u}) {
    EXPECT_EQ(insns[at].src_reg, before[at].src_reg) << at;
    EXPECT_EQ(insns[at].imm, before[at].imm) << at;
  }
  EXPECT_EQ(rewrite_placeholder_calls(insns, placeholder, 65514), 0u) << "nothing is left to rewrite";
}

TEST(SessionKfunc, TheKfuncsIdIsLibbpfs) {
  if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) GTEST_SKIP() << "the kernel has no BTF";
  std::unique_ptr<btf, void (*)(btf*)> parsed(btf__load_vmlinux_btf(), btf__free);
  ASSERT_TRUE(parsed);
  int id = btf__find_by_name_kind(parsed.get(), "bpf_session_is_return", BTF_KIND_FUNC);
  if (id <= 0) {
    EXPECT_FALSE(session_is_return_btf_id()) << "an id the kernel does not have";
    GTEST_SKIP() << "this kernel has no bpf_session_is_return (uprobe sessions: 6.13+)";
  }
  ASSERT_TRUE(session_is_return_btf_id());
  EXPECT_EQ(*session_is_return_btf_id(), static_cast<uint32_t>(id));
}

}  // namespace
}  // namespace seam::runtime
