#pragma once
// A rule on an event read from the raw_syscalls tracepoints (syscalls.any, syscalls.enter) whose
// `where` names its syscalls (`id == ioctl`, `id in (futex, poll)`, `id == a or id == b`) runs
// on those syscalls' own tracepoints (syscalls:sys_enter_ioctl .. sys_exit_ioctl), which fire for
// them alone, instead of on every syscall of the host. The per-syscall records have the same
// layout where a BPF program reads them (the number at 8, the arguments from 16 in 8-byte slots,
// the return value at 16), which bpf-templates/syscall_structs.c.tmpl declares as
// seam_sys_enter/seam_sys_exit: the event's fields id, args and ret read the same there. Lowering
// falls back to raw_syscalls when one of the tracepoints is missing (lower::Options::has_tracepoint)
// or the rule names more than kMaxSyscallTracepoints syscalls (each is two programs to load).
#include <string>
#include <vector>

#include "compiler/ast/ast.hpp"

namespace seam::lower {

inline constexpr size_t kMaxSyscallTracepoints = 8;
inline constexpr const char* kSyscallEnterContext = "struct seam_sys_enter";
inline constexpr const char* kSyscallExitContext = "struct seam_sys_exit";

// Whether `event` is read from raw_syscalls:sys_enter (.. raw_syscalls:sys_exit) with no fields
// but id and args (and the result ret), which the per-syscall records also have.
bool reads_raw_syscalls(const ast::EventDecl& event);

// The names of the syscalls `where` limits the event's `id` to, in the order of their numbers,
// named by the enum `id` is typed with (among `modules`); empty when `where` does not limit `id`
// to a few named syscalls.
std::vector<std::string> named_syscalls(const ast::EventDecl& event, const ast::Expr* where,
                                        const std::vector<const ast::File*>& modules);

}  // namespace seam::lower
