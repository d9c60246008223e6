#pragma once
// uprobe_multi links (kernel 6.6+): a uprobe attached through a BPF link instead of a perf
// event. Detaching a perf-event uprobe waits for RCU grace periods under the kernel's global
// event_mutex (~90 ms each, strictly one after another: 40 uprobes take ~4 s to detach);
// a uprobe_multi link waits without that lock, so links detach in parallel.
// libbpf 1.1 and the 6.1 uapi headers predate them, hence the raw syscall here.
#include <sys/types.h>

#include <cstdint>
#include <string>

namespace seam::runtime {

inline constexpr int kBpfTraceUprobeMulti = 48;  // enum bpf_attach_type BPF_TRACE_UPROBE_MULTI
// Kernel 6.13+: one program run at the entry and, unless the entry returned non-zero, at the
// return, linked as a uprobe_multi link of this attach type. Its programs are in the ELF section
// plan::kUprobeSessionSection (compiler/plan/sites.hpp).
inline constexpr int kBpfTraceUprobeSession = 57;  // BPF_TRACE_UPROBE_SESSION

// A link attaching prog_fd (loaded with expected_attach_type `attach_type`, kBpfTraceUprobeMulti
// or kBpfTraceUprobeSession) at one file offset of `path`; pid -1: every process. Returns the link
// fd or -errno.
int create_uprobe_multi_link(int prog_fd, const std::string& path, uint64_t file_offset, bool retprobe,
                             pid_t pid, int attach_type = kBpfTraceUprobeMulti);

}  // namespace seam::runtime
