#pragma once
// Tracepoints whose fields a raw tracepoint program reads from the tracepoint's own arguments (its
// TP_PROTO), as the kernel's TP_fast_assign fills the perf record from them. A perf tracepoint
// program (SEC("tracepoint/...")) pays, at every hit and before it runs, for the kernel to reserve
// a per-CPU buffer and copy the whole record into it; for a page fault of a process outside every
// scope that is most of what the program costs. A raw tracepoint program (SEC("raw_tracepoint/
// NAME"), struct bpf_raw_tracepoint_args) runs directly, and its link detaches without the
// grace period that closing a perf tracepoint event waits for under the kernel's event_mutex.
//
// Only tracepoints whose prototype has been the same for years are here, and each field's form
// is the kernel's own assignment: tests/e2e/raw_tracepoint_forms_test.cpp checks every entry
// against the running kernel's BTF (btf_trace_NAME) and its tracefs format. The sched tracepoints
// are not here: sched_switch's prev_state is computed (__trace_sched_switch_state), not an argument.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ast/ast.hpp"

namespace seam::lower {

struct RawTracepointForm {
  std::string_view category, name;
  // The prototype's arguments after the tracepoint's `void *` data, as BTF names their types
  // ("long unsigned int", "struct pt_regs *"): what the test compares with the kernel's.
  std::vector<std::string_view> arguments;
  // Each field the module may declare -> its C in a raw tracepoint program (`ctx->args[N]`, or a
  // kernel read through an argument, SEAM_KERNEL_READ: seam_prelude.h).
  std::vector<std::pair<std::string_view, std::string_view>> fields;
  std::vector<std::string_view> kernel_types;  // the structs those reads need (kernel_types.h)
};

const std::vector<RawTracepointForm>& raw_tracepoint_forms();

// The form of tracepoint CATEGORY:NAME, or null when it has none.
const RawTracepointForm* raw_tracepoint_form(std::string_view category, std::string_view name);

// The C of `field` of CATEGORY:NAME in its raw tracepoint program, or nullopt.
std::optional<std::string> raw_tracepoint_field(std::string_view category, std::string_view name,
                                                std::string_view field);

// Whether every probe of `event` is a tracepoint with a form (and no key of its own), and every
// field it reads there has one: then its sites can be raw tracepoint programs.
bool reads_raw_forms(const ast::EventDecl& event);

}  // namespace seam::lower
