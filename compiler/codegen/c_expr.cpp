#include "compiler/codegen/c_expr.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <stdexcept>

#include "compiler/codegen/c_escape.hpp"
#include "compiler/lower/raw_tracepoint_forms.hpp"

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
    case ContextKind::RawTracepoint:
      return "ctx->args[" + std::to_string(n) + "]";
    case ContextKind::BtfArgs:
      return "ctx[" + std::to_string(n) + "]";
    case ContextKind::Usdt:
      return "seam_usdt_arg(ctx, " + std::to_string(n) + ")";
    default:
      throw std::logic_error("argument read where the probe has no arguments");
  }
}

// A raw_syscalls record's field in a raw tracepoint program (bpf-templates/raw_syscall.c.tmpl).
std::string raw_syscall_field(const plan::Value& v, ContextKind context) {
  bool enter = context == ContextKind::RawSyscallEnter;
  if (v.name == "id" && v.element < 0) return enter ? "ctx->args[1]" : "seam_raw_sys_nr(ctx)";
  if (v.name == "ret" && v.element < 0 && !enter) return "ctx->args[1]";
  if (v.name == "args" && enter && v.element >= 0 && v.element < 6)
    return "seam_raw_sys_arg(ctx, " + std::to_string(v.element) + ")";
  throw std::logic_error("raw_syscalls field '" + v.name + "' has no raw tracepoint form here");
}

// A field of a tracepoint made raw, by its form (compiler/lower/raw_tracepoint_forms.hpp).
std::string raw_form_field(const plan::Value& v, const ExprContext& ctx) {
  std::optional<std::string> c;
  if (ctx.attachment && v.element < 0)
    c = lower::raw_tracepoint_field(ctx.attachment->category, ctx.attachment->name, v.name);
  if (!c) throw std::logic_error("tracepoint field '" + v.name + "' has no raw tracepoint form here");
  return *c;
}

}  // namespace

ContextKind context_kind(const plan::Site& site, const plan::Attachment& a) {
  switch (a.kind) {
    case plan::AttachKind::Tracepoint:
      return ContextKind::Tracepoint;
    case plan::AttachKind::RawTracepoint:
      if (a.category == "raw_syscalls")  // compiler/lower/raw_syscall_tracepoints.hpp
        return a.name == "sys_exit" ? ContextKind::RawSyscallExit : ContextKind::RawSyscallEnter;
      return ContextKind::RawTracepoint;
    case plan::AttachKind::TpBtf:
    case plan::AttachKind::Fentry:
    case plan::AttachKind::Fexit:
      return ContextKind::BtfArgs;
    case plan::AttachKind::PerfEvent:
      return ContextKind::PerfEvent;
    case plan::AttachKind::Usdt:
      return ContextKind::Usdt;
    default:
      return ContextKind::PtRegs;
  }
}

const char* c_type(plan::FieldType type) {
  switch (type) {
    case plan::FieldType::U8:
      return "__u8";
    case plan::FieldType::U16:
      return "__u16";
    case plan::FieldType::U32:
      return "__u32";
    case plan::FieldType::I8:
      return "__s8";
    case plan::FieldType::I16:
      return "__s16";
    case plan::FieldType::I32:
      return "__s32";
    case plan::FieldType::I64:
      return "__s64";
    case plan::FieldType::Bool:
      return "__u8";
    default:
      return "__u64";
  }
}

std::string c_value(const plan::Value& v, const ExprContext& ctx) {
  switch (v.kind) {
    case plan::ValueKind::Const:
      return "(" + std::to_string(v.int_value) + "LL)";
    case plan::ValueKind::StrConst:
      return c_string_literal(v.str_value);
    case plan::ValueKind::Arg:
      return widen(arg(v, ctx), v.type);
    case plan::ValueKind::Ret:
      if (ctx.context != ContextKind::PtRegs) throw std::logic_error("return value outside a return probe");
      return widen("PT_REGS_RC(ctx)", v.type);
    case plan::ValueKind::TpField:
      if (ctx.context == ContextKind::RawSyscallEnter || ctx.context == ContextKind::RawSyscallExit)
        return widen(raw_syscall_field(v, ctx.context), v.type);
      if (ctx.context == ContextKind::RawTracepoint) return widen(raw_form_field(v, ctx), v.type);
      return widen("ctx->" + checked_identifier(v.name) +
                       (v.element >= 0 ? "[" + std::to_string(v.element) + "]" : ""),
                   v.type);
    case plan::ValueKind::Table: {  // a chain of conditionals: no array on the BPF stack
      if (v.operands.empty()) throw std::logic_error("table without an index");
      std::string out = "({ __u64 _t = (__u64)" + c_value(v.operands[0], ctx) + "; (__u64)(";
      for (size_t i = 1; i < v.operands.size(); ++i)
        out += "_t == " + std::to_string(i - 1) + "ULL ? (__u64)" + c_value(v.operands[i], ctx) + " : ";
      return out + "0ULL); })";
    }
    case plan::ValueKind::Arith: {
      static const char* const kOps[] = {"+", "-", "*", "/", "%", "<<", ">>", "&", "^", "|"};
      if (v.operands.size() != 2 || std::find(std::begin(kOps), std::end(kOps), v.op) == std::end(kOps))
        throw std::logic_error("malformed arithmetic value");
      // Division and remainder are unsigned: BPF before cpu v4 has no signed division.
      bool div = v.op == "/" || v.op == "%";
      std::string cast = is_signed(v.type) && !div ? "(__s64)" : "(__u64)";
      std::string rhs = cast + c_value(v.operands[1], ctx);
      if (v.op == "<<" || v.op == ">>") rhs = "(" + rhs + " & 63)";  // C leaves wider shifts undefined
      return "(" + cast + c_value(v.operands[0], ctx) + " " + v.op + " " + rhs + ")";
    }
    case plan::ValueKind::Saved:
      if (!ctx.in_span_end) throw std::logic_error("saved span value read outside the span's end");
      return widen("sv->s[" + std::to_string(v.index) + "]", v.type);
    case plan::ValueKind::Duration:
      return ctx.in_span_end ? "duration" : "0ULL";
    case plan::ValueKind::Pid:
      return "((__u64)tgid)";
    case plan::ValueKind::Tid:
      return "((__u64)tid)";
    case plan::ValueKind::Uid:
      return "((__u64)(__u32)bpf_get_current_uid_gid())";
    case plan::ValueKind::Cgroup:
      return "bpf_get_current_cgroup_id()";
    case plan::ValueKind::Cpu:
      return "((__u64)bpf_get_smp_processor_id())";
    case plan::ValueKind::Time:
      return "now";
    case plan::ValueKind::Comm:
      throw std::logic_error("comm used as a number");
    case plan::ValueKind::BeginThread: {
      std::string slot = std::to_string(v.index);
      if (!ctx.in_span_end) {  // saving at the begin
        if (v.name == "pid_tgid") return "pid_tgid";
        if (v.name == "cgroup") return "bpf_get_current_cgroup_id()";
        throw std::logic_error("begin thread slot '" + v.name + "' is not a number");
      }
      if (v.name == "pid") return "(sv->s[" + slot + "] >> 32)";
      if (v.name == "tid") return "((__u64)(__u32)sv->s[" + slot + "])";
      if (v.name == "cgroup") return "sv->s[" + std::to_string(v.index + 1) + "]";
      throw std::logic_error("begin thread's comm used as a number");
    }
    case plan::ValueKind::Correlated: {
      const plan::Correlation& corr = ctx.program->correlations.at(static_cast<size_t>(v.corr));
      const std::string& map = corr.map;
      return widen("({ struct " + map + "_value *c = " + lookup_by_thread(corr.task_local, map) +
                       "; c ? c->s[" + std::to_string(v.index) + "] : 0; })",
                   v.type);
    }
  }
  return "0ULL";
}

std::string c_copy_name(const std::string& dst, const plan::Value& v, const ExprContext& ctx) {
  if (v.kind == plan::ValueKind::BeginThread && v.name == "comm" && ctx.in_span_end)
    return "__builtin_memcpy(" + dst + ", &sv->s[" + std::to_string(v.index + 2) + "], 16)";
  // Through a helper: the verifier refuses loads from a context pointer that was moved.
  if (v.kind == plan::ValueKind::TpField && v.type == plan::FieldType::Str && v.element < 0)
    return "bpf_probe_read_kernel(" + dst + ", 16, &ctx->" + checked_identifier(v.name) + ")";
  return {};
}

std::string c_condition(const plan::Cond& c, const ExprContext& ctx) {
  auto cmp = [&](const char* op) {
    std::string cast = c.is_signed ? "(__s64)" : "(__u64)";
    return "(" + cast + c_value(c.lhs, ctx) + " " + op + " " + cast + c_value(c.rhs, ctx) + ")";
  };
  switch (c.op) {
    case plan::CondOp::True:
      return "1";
    case plan::CondOp::Not:
      return "!" + c_condition(c.kids.at(0), ctx);
    case plan::CondOp::And:
      return "(" + c_condition(c.kids.at(0), ctx) + " && " + c_condition(c.kids.at(1), ctx) + ")";
    case plan::CondOp::Or:
      return "(" + c_condition(c.kids.at(0), ctx) + " || " + c_condition(c.kids.at(1), ctx) + ")";
    case plan::CondOp::Eq:
      return cmp("==");
    case plan::CondOp::Ne:
      return cmp("!=");
    case plan::CondOp::Lt:
      return cmp("<");
    case plan::CondOp::Le:
      return cmp("<=");
    case plan::CondOp::Gt:
      return cmp(">");
    case plan::CondOp::Ge:
      return cmp(">=");
    case plan::CondOp::StrEq:
    case plan::CondOp::StrPrefix: {
      std::string copy = c_copy_name("_n", c.lhs, ctx);
      if ((c.lhs.kind != plan::ValueKind::Comm && copy.empty()) || c.rhs.kind != plan::ValueKind::StrConst)
        throw std::logic_error("string comparison other than a name with a constant");
      size_t len = c.rhs.str_value.size() > 16 ? 16 : c.rhs.str_value.size();
      if (!copy.empty())
        return "({ char _n[16] = {}; " + copy + "; seam_buf_match(_n, " +
               c_string_literal(c.rhs.str_value.substr(0, len)) + ", " + std::to_string(len) + ", " +
               (c.op == plan::CondOp::StrPrefix ? "1" : "0") + "); })";
      return "seam_comm_match(" + c_string_literal(c.rhs.str_value.substr(0, len)) + ", " +
             std::to_string(len) + ", " + (c.op == plan::CondOp::StrPrefix ? "1" : "0") + ")";
    }
    case plan::CondOp::FdIs: {
      const std::string& pattern = c.rhs.str_value;
      bool prefix = !pattern.empty() && pattern.back() == '*';
      std::string name = prefix ? pattern.substr(0, pattern.size() - 1) : pattern;
      return "seam_fd_name_match(" + c_value(c.lhs, ctx) + ", " + c_string_literal(name) + ", " +
             std::to_string(name.size()) + ", " + (prefix ? "1" : "0") + ")";
    }
    case plan::CondOp::IdentityHas:
      return "seam_identity_has(" + c_value(c.lhs, ctx) + ", " + std::to_string(c.index) + ")";
    case plan::CondOp::StateHeld: {
      const plan::State& s = ctx.program->states.at(static_cast<size_t>(c.index));
      if (s.memory_reader >= 0) return "seam_py_gil_held(&" + s.map + ", tgid)";
      if (s.task_local) return "seam_task_flag(SEAM_TASK_GET(" + s.map + "))";
      return "seam_state_held(&" + s.map + ", " + (s.per_process ? "tgid" : "tid") + ")";
    }
    case plan::CondOp::CorrelatedWithin: {
      const plan::Correlation& corr = ctx.program->correlations.at(static_cast<size_t>(c.index));
      const std::string& map = corr.map;
      std::string began = ctx.in_span_end ? "began" : "now";
      // In task storage a zeroed value (ts 0) is a thread that never saw the event.
      // An `after` event that begins a keyed span: and that span has not ended (lower_span_key.cpp).
      std::string in_flight;
      if (c.span >= 0)
        in_flight = " && bpf_map_lookup_elem(&" + ctx.program->spans.at(static_cast<size_t>(c.span)).map +
                    ", &(__u32){(__u32)c->s[" + std::to_string(c.lhs.index) + "]})";
      return "({ struct " + map + "_value *c = " + lookup_by_thread(corr.task_local, map) + "; c && " +
             (corr.task_local ? "c->ts && " : "") + "c->ts <= " + began + " && " + began +
             " - c->ts <= " + std::to_string(c.within_ns) + "ULL" + in_flight + "; })";
    }
  }
  return "0";
}

}  // namespace seam::codegen
