#include "compiler/codegen/c_expr.hpp"

#include <stdexcept>

#include "compiler/codegen/c_escape.hpp"

namespace seam::codegen {

namespace {

bool is_signed(plan::FieldType t) {
  return t == plan::FieldType::I8 || t == plan::FieldType::I16 || t == plan::FieldType::I32 ||
         t == plan::FieldType::I64;
}

std::string widen(const std::string& raw, plan::FieldType type) {
  return std::string("((") + (is_signed(type) ? "__s64" : "__u64") + ")(" + c_type(type) + ")(" + raw + "))";
}

// The current thread's value in a per-thread map.
std::string lookup_by_thread(bool task_local, const std::string& map) {
  return task_local ? "SEAM_TASK_GET(" + map + ")" : "bpf_map_lookup_elem(&" + map + ", &tid)";
}

std::string checked_identifier(const std::string& name) {
  if (!is_c_identifier(name)) throw std::logic_error("unchecked identifier reached codegen: " + name);
  return name;
}

std::string arg(const plan::Value& v, const ExprContext& ctx) {
  int n = v.index;
  switch (ctx.context) {
    case ContextKind::PtRegs:
      if (n < 5) return "PT_REGS_PARM" + std::to_string(n + 1) + "(ctx)";
      if (n == 5) return "ctx->r9";  // libbpf 1.1 has no PT_REGS_PARM6
      return "seam_stack_arg(ctx, " + std::to_string(n) + ")";
    case ContextKind::RawTracepoint: return "ctx->args[" + std::to_string(n) + "]";
    case ContextKind::BtfArgs: return "ctx[" + std::to_string(n) + "]";
    case ContextKind::Usdt: return "seam_usdt_arg(ctx, " + std::to_string(n) + ")";
    default: throw std::logic_error("argument read where the probe has no arguments");
  }
}

}  // namespace

ContextKind context_kind(const plan::Site& site, const plan::Attachment& a) {
  switch (a.kind) {
    case plan::AttachKind::Tracepoint: return ContextKind::Tracepoint;
    case plan::AttachKind::RawTracepoint: return ContextKind::RawTracepoint;
    case plan::AttachKind::TpBtf:
    case plan::AttachKind::Fentry:
    case plan::AttachKind::Fexit: return ContextKind::BtfArgs;
    case plan::AttachKind::PerfEvent: return ContextKind::PerfEvent;
    case plan::AttachKind::Usdt: return ContextKind::Usdt;
    default: return ContextKind::PtRegs;
  }
}

const char* c_type(plan::FieldType type) {
  switch (type) {
    case plan::FieldType::U8: return "__u8";
    case plan::FieldType::U16: return "__u16";
    case plan::FieldType::U32: return "__u32";
    case plan::FieldType::I8: return "__s8";
    case plan::FieldType::I16: return "__s16";
    case plan::FieldType::I32: return "__s32";
    case plan::FieldType::I64: return "__s64";
    case plan::FieldType::Bool: return "__u8";
    default: return "__u64";
  }
}

std::string c_value(const plan::Value& v, const ExprContext& ctx) {
  switch (v.kind) {
    case plan::ValueKind::Const: return "(" + std::to_string(v.int_value) + "LL)";
    case plan::ValueKind::StrConst: return c_string_literal(v.str_value);
    case plan::ValueKind::Arg: return widen(arg(v, ctx), v.type);
    case plan::ValueKind::Ret:
      if (ctx.context != ContextKind::PtRegs) throw std::logic_error("return value outside a return probe");
      return widen("PT_REGS_RC(ctx)", v.type);
    case plan::ValueKind::TpField: return widen("ctx->" + checked_identifier(v.name), v.type);
    case plan::ValueKind::Saved:
      if (!ctx.in_span_end) throw std::logic_error("saved span value read outside the span's end");
      return widen("sv->s[" + std::to_string(v.index) + "]", v.type);
    case plan::ValueKind::Duration: return ctx.in_span_end ? "duration" : "0ULL";
    case plan::ValueKind::Pid: return "((__u64)tgid)";
    case plan::ValueKind::Tid: return "((__u64)tid)";
    case plan::ValueKind::Uid: return "((__u64)(__u32)bpf_get_current_uid_gid())";
    case plan::ValueKind::Cgroup: return "bpf_get_current_cgroup_id()";
    case plan::ValueKind::Cpu: return "((__u64)bpf_get_smp_processor_id())";
    case plan::ValueKind::Time: return "now";
    case plan::ValueKind::Comm: throw std::logic_error("comm used as a number");
    case plan::ValueKind::Correlated: {
      const plan::Correlation& corr = ctx.program->correlations.at(static_cast<size_t>(v.corr));
      const std::string& map = corr.map;
      return widen("({ struct " + map + "_value *c = " + lookup_by_thread(corr.task_local, map) + "; c ? c->s[" +
                       std::to_string(v.index) + "] : 0; })",
                   v.type);
    }
  }
  return "0ULL";
}

std::string c_condition(const plan::Cond& c, const ExprContext& ctx) {
  auto cmp = [&](const char* op) {
    std::string cast = c.is_signed ? "(__s64)" : "(__u64)";
    return "(" + cast + c_value(c.lhs, ctx) + " " + op + " " + cast + c_value(c.rhs, ctx) + ")";
  };
  switch (c.op) {
    case plan::CondOp::True: return "1";
    case plan::CondOp::Not: return "!" + c_condition(c.kids.at(0), ctx);
    case plan::CondOp::And: return "(" + c_condition(c.kids.at(0), ctx) + " && " + c_condition(c.kids.at(1), ctx) + ")";
    case plan::CondOp::Or: return "(" + c_condition(c.kids.at(0), ctx) + " || " + c_condition(c.kids.at(1), ctx) + ")";
    case plan::CondOp::Eq: return cmp("==");
    case plan::CondOp::Ne: return cmp("!=");
    case plan::CondOp::Lt: return cmp("<");
    case plan::CondOp::Le: return cmp("<=");
    case plan::CondOp::Gt: return cmp(">");
    case plan::CondOp::Ge: return cmp(">=");
    case plan::CondOp::StrEq:
    case plan::CondOp::StrPrefix: {
      if (c.lhs.kind != plan::ValueKind::Comm || c.rhs.kind != plan::ValueKind::StrConst)
        throw std::logic_error("string comparison other than comm with a constant");
      size_t len = c.rhs.str_value.size() > 16 ? 16 : c.rhs.str_value.size();
      return "seam_comm_match(" + c_string_literal(c.rhs.str_value.substr(0, len)) + ", " + std::to_string(len) +
             ", " + (c.op == plan::CondOp::StrPrefix ? "1" : "0") + ")";
    }
    case plan::CondOp::StateHeld: {
      const plan::State& s = ctx.program->states.at(static_cast<size_t>(c.index));
      if (s.task_local) return "seam_task_flag(SEAM_TASK_GET(" + s.map + "))";
      return "seam_state_held(&" + s.map + ", " + (s.per_process ? "tgid" : "tid") + ")";
    }
    case plan::CondOp::CorrelatedWithin: {
      const plan::Correlation& corr = ctx.program->correlations.at(static_cast<size_t>(c.index));
      const std::string& map = corr.map;
      std::string began = ctx.in_span_end ? "began" : "now";
      // In task storage a zeroed value (ts 0) is a thread that never saw the event.
      return "({ struct " + map + "_value *c = " + lookup_by_thread(corr.task_local, map) + "; c && " +
             (corr.task_local ? "c->ts && " : "") + "c->ts <= " + began +
             " && " + began + " - c->ts <= " + std::to_string(c.within_ns) + "ULL; })";
    }
  }
  return "0";
}

}  // namespace seam::codegen
