#include "runtime/load/session_kfunc.hpp"

#include <bpf/libbpf.h>
#include <linux/btf.h>

#include <cstring>

#include "compiler/plan/sites.hpp"
#include "runtime/load/btf_type_ids.hpp"

namespace seam::runtime {

size_t rewrite_placeholder_calls(std::vector<bpf_insn>& insns, int32_t placeholder, uint32_t btf_id) {
  size_t rewritten = 0;
  for (bpf_insn& insn : insns) {
    if (insn.code != (BPF_JMP | BPF_CALL) || insn.src_reg != 0 || insn.imm != placeholder) continue;
    insn.src_reg = BPF_PSEUDO_KFUNC_CALL;
    insn.off = 0;  // 0: the kfunc is vmlinux's, not a module's
    insn.imm = static_cast<int32_t>(btf_id);
    ++rewritten;
  }
  return rewritten;
}

std::optional<uint32_t> session_is_return_btf_id() {
  static const std::optional<uint32_t> id = []() -> std::optional<uint32_t> {
    const BtfName kfunc{"bpf_session_is_return", BTF_KIND_FUNC};
    std::optional<std::map<BtfName, uint32_t>> ids = kernel_btf_type_ids({kfunc});
    if (!ids || !ids->count(kfunc)) return std::nullopt;
    return ids->at(kfunc);
  }();
  return id;
}

std::string resolve_session_is_return(bpf_program* program) {
  const bpf_insn* first = bpf_program__insns(program);
  std::vector<bpf_insn> insns(first, first + bpf_program__insn_cnt(program));
  const std::string name = bpf_program__name(program);
  std::optional<uint32_t> id = session_is_return_btf_id();
  if (!id) return "uprobe session program " + name + ": the kernel's BTF has no kfunc bpf_session_is_return";
  if (rewrite_placeholder_calls(insns, plan::kSessionIsReturnPlaceholder, *id) == 0) return "";
  if (int err = bpf_program__set_insns(program, insns.data(), insns.size()); err != 0)
    return "uprobe session program " + name + ": cannot rewrite its kfunc calls: " + std::strerror(-err);
  return "";
}

}  // namespace seam::runtime
