#pragma once
#include <set>
// Kernel values and predicates (plan::Value, plan::Cond) written as C expressions for one site.
#include <string>

#include "compiler/plan/sites.hpp"

namespace seam::codegen {

// RawSyscallEnter/Exit: raw_tracepoint/sys_enter and sys_exit, whose tracepoint fields (id, args,
// ret) read from the tracepoint's arguments (bpf-templates/raw_syscall.c.tmpl).
enum class ContextKind {
  PtRegs,
  Tracepoint,
  RawTracepoint,
  BtfArgs,
  PerfEvent,
  Usdt,
  RawSyscallEnter,
  RawSyscallExit
};

struct ExprContext {
  const plan::Program* program = nullptr;
  ContextKind context = ContextKind::PtRegs;
  bool in_span_end = false;  // `sv`, `duration` and `began` are in scope
  // In a program serving several scope slots: the slots whose rule checks and metric updates
  // each test the process first (scope_slots.hpp); null when the program tests once or never.
  const std::set<int>* gate_slots = nullptr;
  // The site's attachment: a raw tracepoint made from a tracepoint reads its fields by the
  // tracepoint's raw form (compiler/lower/raw_tracepoint_forms.hpp).
  const plan::Attachment* attachment = nullptr;
};

ContextKind context_kind(const plan::Site& site, const plan::Attachment& attachment);

// The C type a field type reads as.
const char* c_type(plan::FieldType type);
// The value, widened to 64 bits with its signedness kept.
std::string c_value(const plan::Value& value, const ExprContext& ctx);
std::string c_condition(const plan::Cond& cond, const ExprContext& ctx);
// A statement copying a 16-byte name (a saved begin comm, a tracepoint's char array) to `dst`;
// empty for any other value.
std::string c_copy_name(const std::string& dst, const plan::Value& value, const ExprContext& ctx);

}  // namespace seam::codegen
