#include "compiler/plan/cond_text.hpp"

namespace seam::plan {

std::string value_text(const Value& v) {
  switch (v.kind) {
    case ValueKind::Const:
      return std::to_string(v.int_value);
    case ValueKind::StrConst:
      return "\"" + v.str_value + "\"";
    case ValueKind::Arg:
      return "arg" + std::to_string(v.index);
    case ValueKind::Ret:
      return "ret";
    case ValueKind::TpField:
      return v.name + (v.element >= 0 ? "[" + std::to_string(v.element) + "]" : "");
    case ValueKind::Saved:
      return "saved[" + std::to_string(v.index) + "]";
    case ValueKind::Duration:
      return "duration";
    case ValueKind::Pid:
      return "pid";
    case ValueKind::Tid:
      return "tid";
    case ValueKind::Uid:
      return "uid";
    case ValueKind::Cgroup:
      return "cgroup";
    case ValueKind::Cpu:
      return "cpu";
    case ValueKind::Time:
      return "time";
    case ValueKind::Comm:
      return "comm";
    case ValueKind::Correlated:
      return "after[" + std::to_string(v.index) + "]";
    case ValueKind::BeginThread:
      return "begin." + v.name;
    case ValueKind::Arith:
      if (v.operands.size() != 2) return "?";
      return "(" + value_text(v.operands[0]) + " " + v.op + " " + value_text(v.operands[1]) + ")";
    case ValueKind::Table:
      return v.operands.empty() ? "?" : "table[" + value_text(v.operands[0]) + "]";
  }
  return "?";
}

std::string cond_text(const Cond& c) {
  auto cmp = [&](const char* op) { return value_text(c.lhs) + " " + op + " " + value_text(c.rhs); };
  auto kid = [&](size_t i) { return i < c.kids.size() ? cond_text(c.kids[i]) : std::string("?"); };
  switch (c.op) {
    case CondOp::True:
      return "true";
    case CondOp::Not:
      return "!(" + kid(0) + ")";
    case CondOp::And:
      return "(" + kid(0) + " && " + kid(1) + ")";
    case CondOp::Or:
      return "(" + kid(0) + " || " + kid(1) + ")";
    case CondOp::Eq:
      return cmp("==");
    case CondOp::Ne:
      return cmp("!=");
    case CondOp::Lt:
      return cmp("<");
    case CondOp::Le:
      return cmp("<=");
    case CondOp::Gt:
      return cmp(">");
    case CondOp::Ge:
      return cmp(">=");
    case CondOp::StrEq:
      return cmp("==");
    case CondOp::StrPrefix:
      return cmp("startswith");
    case CondOp::StateHeld:
      return "state[" + std::to_string(c.index) + "]";
    case CondOp::CorrelatedWithin:
      return "after[" + std::to_string(c.index) + "] within " + std::to_string(c.within_ns) + "ns";
    case CondOp::FdIs:
      return "fd_is(" + value_text(c.lhs) + ", " + value_text(c.rhs) + ")";
    case CondOp::IdentityHas:
      return "identity_test[" + std::to_string(c.index) + "](" + value_text(c.lhs) + ")";
  }
  return "?";
}

}  // namespace seam::plan
