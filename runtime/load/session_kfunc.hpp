#pragma once
// A uprobe session program asks whether it runs at the function's return with the kfunc
// bpf_session_is_return(). Codegen writes that call as a call to helper
// plan::kSessionIsReturnPlaceholder (an id no kernel has); this rewrites each such call into the
// kfunc's call before the load. Declared as an extern __ksym instead, the kfunc made libbpf 1.1
// parse the kernel's whole BTF (5.5 MB, about 13 ms) at every load, only to find its id; the id is
// found here by the mapped walk of btf_type_ids.hpp (under 1 ms).
#include <linux/bpf.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct bpf_program;

namespace seam::runtime {

// Rewrites every `call placeholder` (a helper call) in `insns` into a call of the vmlinux kfunc
// `btf_id`; returns how many it rewrote.
size_t rewrite_placeholder_calls(std::vector<bpf_insn>& insns, int32_t placeholder, uint32_t btf_id);

// bpf_session_is_return's id in the running kernel's BTF, found once per process; nullopt when
// the kernel has no BTF or no such kfunc.
std::optional<uint32_t> session_is_return_btf_id();

// Rewrites the session program's placeholder calls (before bpf_object__load). Returns "" or why
// it could not, naming the program.
std::string resolve_session_is_return(bpf_program* program);

}  // namespace seam::runtime
