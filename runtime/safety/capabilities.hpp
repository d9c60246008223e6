#pragma once
// Least privilege for `seam run` (docs/operations.md, "Security model"): once the probes are
// attached and the metrics port is bound, seam keeps only the capabilities that reloads and
// newly started processes still need, in every thread:
//   CAP_BPF, CAP_PERFMON       load programs and maps, attach uprobes and tracepoints
//   CAP_SYS_PTRACE             read other users' /proc/PID/maps, /proc/PID/root, /proc/PID/mem
//   CAP_DAC_READ_SEARCH        read libraries and binaries other users can read only themselves
//   CAP_CHECKPOINT_RESTORE     open /proc/PID/map_files (deleted files, memfds)
//   CAP_SYSLOG                 kernel addresses in /proc/kallsyms (kernel stacks)
// On a kernel older than CAP_BPF/CAP_PERFMON (5.8) CAP_SYS_ADMIN stands for them, and without
// CAP_CHECKPOINT_RESTORE (5.9) for that one. Everything else (CAP_SYS_ADMIN, CAP_NET_ADMIN,
// CAP_SYS_MODULE, CAP_DAC_OVERRIDE, CAP_SETUID...) is dropped from the effective, permitted and
// inheritable sets.
#include <cstdint>
#include <string>

#include "compiler/diag/result.hpp"

namespace seam::runtime {

// The capability numbers kept, as a mask (bit N = capability N), for this kernel.
uint64_t capabilities_kept();

// Drops every other capability in every thread of the process. An error when that failed (seam
// then runs on with what it has).
Result<void> drop_capabilities();

// Names of the capabilities in `mask` ("cap_bpf,cap_perfmon"), for messages and tests.
std::string capability_names(uint64_t mask);

}  // namespace seam::runtime
