#pragma once
// syscalls.any and syscalls.enter see every syscall of the host, from raw_syscalls:sys_enter and
// sys_exit. As perf tracepoint programs (SEC("tracepoint/raw_syscalls/...")) each hit pays the
// kernel's perf_trace_buf_alloc and a copy of the whole trace record before the program runs, even
// for a process the program returns from at once (outside every rule's scope). As raw tracepoint
// programs (SEC("raw_tracepoint/sys_enter"), arguments `struct pt_regs *regs, long id`; sys_exit:
// `regs, long ret`) the program runs directly and reads only what it uses: `id` (at entry) and
// `ret` (at exit) are the tracepoint's second argument, `args[n]` and `id` at exit are read from
// the saved user registers (x86-64: di, si, dx, r10, r8, r9; orig_ax), as the kernel fills the
// record (bpf-templates/raw_syscall.h). So an event whose fields are only id, args and ret
// (reads_raw_syscalls) lowers to raw tracepoint sites; a raw tracepoint site keeps the same
// category ("raw_syscalls") and name ("sys_enter") in the plan, the kind says which it is.
#include <vector>

#include "compiler/lower/lower.hpp"
#include "compiler/plan/sites.hpp"

namespace seam::lower {

// Whether raw_syscalls sites become raw tracepoint programs: where the kernel has them, or where
// that is not known (then with a perf tracepoint fallback, wants_tracepoint_fallback).
bool use_raw_syscall_tracepoints(const Options& options);
bool wants_tracepoint_fallback(const Options& options);

// Makes `a` and `site` (a tracepoint CATEGORY:NAME: raw_syscalls, or one with a raw form,
// raw_tracepoint_forms.hpp) the raw tracepoint program for NAME. The plan keeps its category.
void make_raw_tracepoint_site(plan::Attachment& a, plan::Site& site);

// Gives each of `sites` (raw tracepoint sites of make_raw_tracepoint_site, with all their actions
// placed) a perf tracepoint program on the same tracepoint doing the same: a new site whose
// attachment is the first's fallback (is_fallback), loaded only where raw tracepoints are not.
void add_tracepoint_fallbacks(plan::Program& program, const std::vector<int>& sites);

}  // namespace seam::lower
