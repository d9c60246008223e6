// Expressions of the checked AST become kernel predicates and values (plan::Cond, plan::Value).
#include <algorithm>

#include "compiler/lower/lowerer.hpp"

namespace seam::lower {

plan::FieldType field_type(const ast::Type& type) {
  switch (type.kind) {
    case ast::TypeKind::Bool:
      return plan::FieldType::Bool;
    case ast::TypeKind::Str:
      return plan::FieldType::Str;
    case ast::TypeKind::Ptr:
      return plan::FieldType::Ptr;
    case ast::TypeKind::Int:
      switch (type.bits) {
        case 8:
          return type.is_signed ? plan::FieldType::I8 : plan::FieldType::U8;
        case 16:
          return type.is_signed ? plan::FieldType::I16 : plan::FieldType::U16;
        case 32:
          return type.is_signed ? plan::FieldType::I32 : plan::FieldType::U32;
        default:
          return type.is_signed ? plan::FieldType::I64 : plan::FieldType::U64;
      }
    default:
      return plan::FieldType::U64;
  }
}

plan::FieldUnit field_unit(const ast::Type& type) {
  if (type.unit == ast::Unit::Duration) return plan::FieldUnit::Ns;
  if (type.unit == ast::Unit::Bytes) return plan::FieldUnit::Bytes;
  return plan::FieldUnit::None;
}

namespace {

bool is_signed(plan::FieldType t) {
  return t == plan::FieldType::I8 || t == plan::FieldType::I16 || t == plan::FieldType::I32 ||
         t == plan::FieldType::I64;
}

// How a probe of this kind exposes a field: registers (uprobes, kprobes...) or a named member.
plan::Value direct_field(ast::ProbeKind kind, const ast::FieldDecl& field, int element = -1) {
  plan::Value v;
  v.element = element;
  v.type = field_type(field.type.type);
  if (field.is_result) {
    v.kind = plan::ValueKind::Ret;
  } else if (kind == ast::ProbeKind::Tracepoint) {
    v.kind = plan::ValueKind::TpField;
    v.name = field.name.name;
  } else {
    v.kind = plan::ValueKind::Arg;
    v.index = field.index;
  }
  if (kind == ast::ProbeKind::Tracepoint && field.is_result) {
    v.kind = plan::ValueKind::TpField;
    v.name = field.name.name;
  }
  return v;
}

int slot_for(std::vector<plan::Value>& saves, const plan::Value& v) {
  for (size_t i = 0; i < saves.size(); ++i)
    if (saves[i].kind == v.kind && saves[i].index == v.index && saves[i].name == v.name &&
        saves[i].corr == v.corr && saves[i].element == v.element)
      return static_cast<int>(i);
  saves.push_back(v);
  return static_cast<int>(saves.size() - 1);
}

const ast::FieldDecl* find_field(const ast::EventDecl& event, const std::string& name) {
  for (const ast::FieldDecl& f : event.fields)
    if (f.name.name == name) return &f;
  return nullptr;
}

plan::Value builtin(const std::string& name) {
  plan::Value v;
  v.type = plan::FieldType::U64;
  if (name == "pid")
    v.kind = plan::ValueKind::Pid;
  else if (name == "tid")
    v.kind = plan::ValueKind::Tid;
  else if (name == "uid")
    v.kind = plan::ValueKind::Uid;
  else if (name == "cgroup")
    v.kind = plan::ValueKind::Cgroup;
  else if (name == "cpu")
    v.kind = plan::ValueKind::Cpu;
  else if (name == "time")
    v.kind = plan::ValueKind::Time;
  else if (name == "duration")
    v.kind = plan::ValueKind::Duration;
  else if (name == "comm") {
    v.kind = plan::ValueKind::Comm;
    v.type = plan::FieldType::Str;
  } else {
    v.kind = plan::ValueKind::Const;
  }
  return v;
}

}  // namespace

plan::Value Lowerer::field_value(const ast::EventDecl& event, const ast::FieldDecl& field, bool at_end,
                                 int element) {
  if (field.computed) {
    if (computing_.count(&field)) {
      unsupported(field.name.range, "field '" + field.name.name + "' is computed from itself");
      return plan::Value{};
    }
    computing_.insert(&field);
    ast::RuleDecl on_event;
    on_event.resolved_event = &event;
    plan::Value v = expr_value(*field.computed, on_event, -1);
    computing_.erase(&field);
    return v;
  }
  const EventSites& es = event_sites(event);
  if (element >= 0 && es.begin_kind != ast::ProbeKind::Tracepoint) {
    unsupported(field.name.range, "array field '" + field.name.name + "' is only readable from a tracepoint");
    return plan::Value{};
  }
  if (!event.is_span) return direct_field(es.begin_kind, field, element);
  if (field.is_result) return direct_field(es.end_kind, field, element);
  plan::Value at_begin = direct_field(es.begin_kind, field, element);
  if (!at_end) return at_begin;
  if (at_begin.type == plan::FieldType::Str) {  // would need 16 bytes of the in-flight value
    unsupported(field.name.range,
                "string field '" + field.name.name + "' is readable at a span's end only (after `->`)");
    return plan::Value{};
  }
  plan::Value saved;
  saved.kind = plan::ValueKind::Saved;
  saved.type = at_begin.type;
  saved.index = slot_for(program.spans[static_cast<size_t>(es.span)].saves, at_begin);
  return saved;
}

int Lowerer::begin_thread_slot(const ast::EventDecl& event) {
  const EventSites& es = event_sites(event);
  plan::Span& span = program.spans[static_cast<size_t>(es.span)];
  if (span.thread_slot >= 0) return span.thread_slot;
  span.thread_slot = static_cast<int>(span.saves.size());
  for (const char* what : {"pid_tgid", "cgroup", "comm", "comm"}) {  // comm: 16 bytes, two slots
    plan::Value v;
    v.kind = plan::ValueKind::BeginThread;
    v.name = what;
    v.index = span.thread_slot;
    span.saves.push_back(v);
  }
  return span.thread_slot;
}

plan::Value Lowerer::begin_thread_value(const ast::EventDecl& event, const std::string& builtin) {
  plan::Value v;
  v.kind = plan::ValueKind::BeginThread;
  v.name = builtin;
  v.index = begin_thread_slot(event);
  v.type = builtin == "comm" ? plan::FieldType::Str : plan::FieldType::U64;
  return v;
}

plan::Value Lowerer::key_value(const ast::EventDecl& event, const ast::Expr& key, ast::ProbeKind probe_kind) {
  const auto* ref = std::get_if<ast::NameRef>(&key.node);
  if (!ref || ref->name.parts.empty()) return builtin("tid");
  const std::string& name = ref->name.parts.back().name;
  if (const ast::FieldDecl* f = find_field(event, name)) {
    ast::FieldDecl as_arg = *f;
    as_arg.is_result = false;  // a key is read directly from the probe it follows
    return direct_field(probe_kind, as_arg);
  }
  return builtin(name);
}

plan::Value Lowerer::name_value(const ast::NameRef& ref, const ast::RuleDecl& rule, int correlation) {
  switch (ref.kind) {
    case ast::RefKind::EventField:
      if (ref.field && rule.resolved_event)
        return field_value(*rule.resolved_event, *ref.field, true, static_cast<int>(ref.index));
      break;
    case ast::RefKind::Builtin: {
      if (ref.builtin == "pending") {
        unsupported(ref.name.range,
                    "`pending` is checked by scanning spans in flight, which this build does not do yet");
        break;
      }
      const ast::EventDecl* event = rule.resolved_event;
      if (event &&
          (ref.builtin == "pid" || ref.builtin == "tid" || ref.builtin == "cgroup" ||
           ref.builtin == "comm") &&
          event_sites(*event).keyed)
        return begin_thread_value(*event, ref.builtin);
      return builtin(ref.builtin);
    }
    case ast::RefKind::OtherEvent:
      if (ref.field && ref.event && correlation >= 0) {
        plan::Value inner = field_value(*ref.event, *ref.field, true, static_cast<int>(ref.index));
        plan::Value v;
        v.kind = plan::ValueKind::Correlated;
        v.corr = correlation;
        v.type = inner.type;
        v.index = slot_for(program.correlations[static_cast<size_t>(correlation)].saves, inner);
        return v;
      }
      break;
    default:
      break;
  }
  plan::Value zero;
  zero.kind = plan::ValueKind::Const;
  return zero;
}

plan::Value Lowerer::expr_value(const ast::Expr& e, const ast::RuleDecl& rule, int correlation) {
  plan::Value v;
  if (const auto* i = std::get_if<ast::IntLit>(&e.node)) {
    v.int_value = i->value;
    v.type = plan::FieldType::I64;
  } else if (const auto* s = std::get_if<ast::StrLit>(&e.node)) {
    v.kind = plan::ValueKind::StrConst;
    v.str_value = s->value;
    v.type = plan::FieldType::Str;
  } else if (const auto* r = std::get_if<ast::NameRef>(&e.node)) {
    v = name_value(*r, rule, correlation);
  } else if (const auto* u = std::get_if<ast::Unary>(&e.node); u && u->op == ast::UnaryOp::Neg) {
    if (const auto* lit = std::get_if<ast::IntLit>(&u->operand->node)) {
      v.int_value = -lit->value;
      v.type = plan::FieldType::I64;
    } else {  // 0 - x
      v.kind = plan::ValueKind::Arith;
      v.op = "-";
      v.type = plan::FieldType::I64;
      v.operands.push_back(plan::Value{});
      v.operands.push_back(expr_value(*u->operand, rule, correlation));
    }
  } else if (const auto* t = std::get_if<ast::Table>(&e.node)) {
    v.kind = plan::ValueKind::Table;
    v.operands.push_back(expr_value(*t->index, rule, correlation));
    for (const ast::ExprPtr& entry : t->entries) v.operands.push_back(expr_value(*entry, rule, correlation));
  } else if (const auto* b = std::get_if<ast::Binary>(&e.node); b && ast::is_arithmetic(b->op)) {
    v.kind = plan::ValueKind::Arith;
    v.op = ast::to_string(b->op);
    v.type = e.type.is_signed ? plan::FieldType::I64 : plan::FieldType::U64;
    v.operands.push_back(expr_value(*b->lhs, rule, correlation));
    v.operands.push_back(expr_value(*b->rhs, rule, correlation));
  }
  return v;
}

namespace {

[[noreturn]] void not_a_condition(const ast::Expr& expr, const ast::RuleDecl& rule) {
  std::string where = origin_of(expr.range);
  throw LowerError((where.empty() ? "" : where + ": ") + "rule " + rule.name.name +
                   ": a condition seam cannot evaluate in the kernel (a checker and lowerer mismatch)");
}

}  // namespace

const ast::NameRef* identity_name(const ast::Expr& e) {
  const auto* ref = std::get_if<ast::NameRef>(&e.node);
  if (!ref || ref->kind != ast::RefKind::Builtin) return nullptr;
  const std::string& b = ref->builtin;
  return b == "container" || b == "container_id" || b == "pod" || b == "namespace" ? ref : nullptr;
}

// `container == "x"` is a bit of the identity map at the event's cgroup (for a keyed pair, the
// cgroup of the thread that began it); `!=` its negation. One bit per distinct test in a file.
plan::Cond Lowerer::identity_condition(const ast::NameRef& ref, const ast::Binary& bin,
                                       const ast::RuleDecl& rule) {
  const ast::Expr& other = identity_name(*bin.lhs) == &ref ? *bin.rhs : *bin.lhs;
  plan::IdentityTest test;
  test.field = ref.builtin;
  test.prefix = bin.op == ast::BinaryOp::StartsWith;
  if (const auto* lit = std::get_if<ast::StrLit>(&other.node)) test.value = lit->value;
  std::vector<plan::IdentityTest>& tests = program.plan.identity_tests;
  auto found = std::find_if(tests.begin(), tests.end(), [&](const plan::IdentityTest& t) {
    return t.field == test.field && t.prefix == test.prefix && t.value == test.value;
  });
  if (found == tests.end()) {
    if (tests.size() >= plan::kMaxIdentityTests) {
      unsupported(ref.name.range,
                  "more than " + std::to_string(plan::kMaxIdentityTests) +
                      " distinct container, pod and namespace tests in one file: this one never holds");
      plan::Cond never;
      never.op = plan::CondOp::Not;
      never.kids.push_back(plan::Cond{});
      return never;
    }
    if (tests.empty())
      program.plan.maps.push_back({program.plan.identity_map,
                                   plan::MapType::Hash,
                                   8,
                                   8,
                                   kIdentityMapEntries,
                                   "identity tests by cgroup",
                                   {}});
    tests.push_back(test);
    found = tests.end() - 1;
  }
  plan::Cond c;
  c.op = plan::CondOp::IdentityHas;
  c.index = static_cast<int>(found - tests.begin());
  ast::NameRef cgroup;
  cgroup.kind = ast::RefKind::Builtin;
  cgroup.builtin = "cgroup";
  c.lhs = name_value(cgroup, rule, -1);
  if (bin.op != ast::BinaryOp::Ne) return c;
  plan::Cond n;
  n.op = plan::CondOp::Not;
  n.kids.push_back(std::move(c));
  return n;
}

plan::Cond Lowerer::condition(const ast::Expr& expr, const ast::RuleDecl& rule, int correlation) {
  plan::Cond c;
  if (const auto* b = std::get_if<ast::BoolLit>(&expr.node)) {
    if (!b->value) c.op = plan::CondOp::Not, c.kids.push_back(plan::Cond{});
    return c;
  }
  if (const auto* u = std::get_if<ast::Unary>(&expr.node)) {
    c.op = plan::CondOp::Not;
    c.kids.push_back(condition(*u->operand, rule, correlation));
    return c;
  }
  if (const auto* ref = std::get_if<ast::NameRef>(&expr.node)) {
    if (ref->kind == ast::RefKind::State && ref->state) {
      c.op = plan::CondOp::StateHeld;
      c.index = state_index(*ref->state);
      return c;
    }
    c.op = plan::CondOp::Ne;  // a bare value is true when non-zero
    c.lhs = name_value(*ref, rule, correlation);
    return c;
  }
  if (const auto* call = std::get_if<ast::Call>(&expr.node); call && call->function.name == "fd_is") {
    c.op = plan::CondOp::FdIs;
    c.lhs = expr_value(*call->args.at(0), rule, correlation);
    c.rhs = expr_value(*call->args.at(1), rule, correlation);
    for (const char* type :
         {"struct task_struct", "struct files_struct", "struct fdtable", "struct file", "struct dentry"})
      program.kernel_types.push_back(type);
    return c;
  }
  const auto* bin = std::get_if<ast::Binary>(&expr.node);
  if (!bin) not_a_condition(expr, rule);
  if (bin->op == ast::BinaryOp::And || bin->op == ast::BinaryOp::Or) {
    c.op = bin->op == ast::BinaryOp::And ? plan::CondOp::And : plan::CondOp::Or;
    c.kids.push_back(condition(*bin->lhs, rule, correlation));
    c.kids.push_back(condition(*bin->rhs, rule, correlation));
    return c;
  }
  if (const ast::NameRef* id = identity_name(*bin->lhs)) return identity_condition(*id, *bin, rule);
  if (const ast::NameRef* id = identity_name(*bin->rhs)) return identity_condition(*id, *bin, rule);
  c.lhs = expr_value(*bin->lhs, rule, correlation);
  c.rhs = expr_value(*bin->rhs, rule, correlation);
  bool strings = c.lhs.type == plan::FieldType::Str || c.rhs.type == plan::FieldType::Str;
  if (strings) {
    // Keep the task's name on the left: the generated helper compares a buffer with a constant.
    if (c.lhs.kind == plan::ValueKind::StrConst) std::swap(c.lhs, c.rhs);
    if (bin->op == ast::BinaryOp::StartsWith) {
      c.op = plan::CondOp::StrPrefix;
    } else {
      c.op = plan::CondOp::StrEq;
      if (bin->op == ast::BinaryOp::Ne) {
        plan::Cond n;
        n.op = plan::CondOp::Not;
        n.kids.push_back(std::move(c));
        return n;
      }
    }
    return c;
  }
  // Literals take the other side's signedness; a signed field compares signed.
  bool lhs_const = c.lhs.kind == plan::ValueKind::Const, rhs_const = c.rhs.kind == plan::ValueKind::Const;
  c.is_signed = (!lhs_const && is_signed(c.lhs.type)) || (!rhs_const && is_signed(c.rhs.type)) ||
                (lhs_const && rhs_const);
  switch (bin->op) {
    case ast::BinaryOp::Eq:
      c.op = plan::CondOp::Eq;
      break;
    case ast::BinaryOp::Ne:
      c.op = plan::CondOp::Ne;
      break;
    case ast::BinaryOp::Lt:
      c.op = plan::CondOp::Lt;
      break;
    case ast::BinaryOp::Le:
      c.op = plan::CondOp::Le;
      break;
    case ast::BinaryOp::Gt:
      c.op = plan::CondOp::Gt;
      break;
    case ast::BinaryOp::Ge:
      c.op = plan::CondOp::Ge;
      break;
    default:
      not_a_condition(expr, rule);
  }
  return c;
}

}  // namespace seam::lower
