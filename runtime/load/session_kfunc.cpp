#include "runtime/load/session_kfunc.hpp"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/btf.h>

#include <cstring>

#include "compiler/build/vmlinux_btf.hpp"
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
    if (std::optional<std::map<BtfName, uint32_t>> ids = find_vmlinux_btf_type_ids({kfunc})) {
      auto found = ids->find(kfunc);
      if (found == ids->end()) return std::nullopt;
      return found->second;
    }
    // Kernels before 6.16 cannot map the file: libbpf parses it.
    Result<std::shared_ptr<const btf>> vmlinux = build::acquire_vmlinux_btf();
    if (!vmlinux) return std::nullopt;
    int found = btf__find_by_name_kind(vmlinux->get(), kfunc.first.c_str(), kfunc.second);
    if (found <= 0) return std::nullopt;
    return static_cast<uint32_t>(found);
  }();
  return id;
}

std::string resolve_session_is_return(bpf_program* program) {
  const bpf_insn* first = bpf_program__insns(program);
  std::vector<bpf_insn> insns(first, first + bpf_program__insn_cnt(program));
  std::vector<bpf_insn> rewritten = insns;
  const std::string name = bpf_program__name(program);
  std::optional<uint32_t> id = session_is_return_btf_id();
  if (!id) return "uprobe session program " + name + ": the kernel's BTF has no kfunc bpf_session_is_return";
  if (rewrite_placeholder_calls(rewritten, plan::kSessionIsReturnPlaceholder, *id) == 0) return "";
  if (int err = bpf_program__set_insns(program, rewritten.data(), rewritten.size()); err != 0)
    return "uprobe session program " + name + ": cannot rewrite its kfunc calls: " + std::strerror(-err);
  return "";
}

}  // namespace seam::runtime
