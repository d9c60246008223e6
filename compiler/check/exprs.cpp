// Expressions: what each name refers to, the type of every node, and units. Durations and byte
// counts are integers with a unit; comparing across units, or a bare number with a unit-carrying
// value, is an error, since `duration > 10` is almost always a mistaken `10ms`.
#include <algorithm>

#include "compiler/check/checker.hpp"
#include "compiler/check/suggest.hpp"
#include "compiler/plan/plan.hpp"

namespace seam::check {

using ast::Type;
using ast::TypeKind;
using ast::Unit;
using diag::Code;

namespace {

const char* const kBuiltins[] = {"pid", "tid", "comm", "cgroup", "uid", "cpu", "time"};
// Tested in conditions only (not in messages or `with`): suggested, not listed as fields.
const char* const kIdentityNames[] = {"container", "container_id", "pod", "namespace"};
const char* const kDurationUnits = "durations take ns, us, ms, s, m, h";
const char* const kBytesUnits = "bytes take B, KiB, MiB, GiB, TiB, KB, MB, GB";

Type duration_type() {
  return Type::integer(64, false, Unit::Duration);
}
Type bool_type() {
  return Type::of(TypeKind::Bool);
}

const ast::IntLit* int_literal(const ast::Expr& e) {
  if (const auto* lit = std::get_if<ast::IntLit>(&e.node)) return lit;
  if (const auto* u = std::get_if<ast::Unary>(&e.node); u && u->op == ast::UnaryOp::Neg && u->operand)
    return int_literal(*u->operand);
  return nullptr;
}

int64_t literal_value(const ast::Expr& e) {
  if (const auto* lit = std::get_if<ast::IntLit>(&e.node)) return lit->value;
  if (const auto* u = std::get_if<ast::Unary>(&e.node); u && u->operand) return -literal_value(*u->operand);
  return 0;
}

std::string unit_example(const ast::Expr& literal, Unit unit) {
  std::string number(literal.range.text());
  return "write " + number + (unit == Unit::Duration ? "ms" : "KiB");
}

bool is_severity(const Type& t) {
  return t.kind == TypeKind::Int && t.enum_name == "severity";
}

// "'comm' (str)", "'5' (a number)": an operand as written, with its type.
std::string operand(const ast::Expr& e) {
  return "'" + std::string(e.range.text()) + "' (" +
         (int_literal(e) ? std::string("a number") : describe(e.type)) + ")";
}

}  // namespace

bool is_identity_name(std::string_view name) {
  return name == "container" || name == "container_id" || name == "pod" || name == "namespace";
}

std::optional<Type> builtin_type(std::string_view name) {
  if (name == "pid" || name == "tid" || name == "uid" || name == "cpu") return Type::integer(32, false);
  if (name == "cgroup") return Type::integer(64, false);
  if (name == "comm" || is_identity_name(name)) return Type::of(TypeKind::Str);
  if (name == "time") return duration_type();
  return std::nullopt;
}

const ast::FieldDecl* find_field(const ast::EventDecl& e, std::string_view name) {
  for (const ast::FieldDecl& f : e.fields)
    if (f.name.name == name) return &f;
  return nullptr;
}

std::string fields_hint(const ast::EventDecl& e) {
  std::vector<std::string> names;
  for (const ast::FieldDecl& f : e.fields) names.push_back(f.name.name);
  if (e.is_span) names.push_back("duration");
  for (const char* b : kBuiltins) names.push_back(b);
  return event_name(e) + " has fields: " + join(names);
}

std::string describe(const Type& t) {
  if (t.kind == TypeKind::Int && t.unit == Unit::Duration) return "a duration";
  if (t.kind == TypeKind::Int && t.unit == Unit::Bytes) return "a byte count";
  if (is_severity(t)) return "a severity";
  return ast::to_string(t);
}

void Checker::require_boolean(ast::Expr& e, const char* clause) {
  if (e.type.kind == TypeKind::Bool || e.type.kind == TypeKind::Unknown) return;
  diags_
      .error(Code::NotBoolean, e.range,
             std::string("`") + clause + "` needs a condition, but this is " + describe(e.type))
      .hints.push_back("compare it with something, e.g. `" + std::string(e.range.text()) + " > 0`");
}

void Checker::require_duration(ast::Expr& e, const char* what) {
  if (e.type.kind == TypeKind::Unknown) return;
  if (e.type.kind == TypeKind::Int && e.type.unit == Unit::Duration) return;
  if (int_literal(e) && e.type.unit == Unit::None) {
    diags_.error(Code::MissingUnit, e.range, std::string(what) + " needs a time unit")
        .hints.push_back(unit_example(e, Unit::Duration));
    return;
  }
  diags_
      .error(Code::UnitMismatch, e.range, std::string(what) + " must be a duration, not " + describe(e.type))
      .hints.push_back(kDurationUnits);
}

// A name in an expression: an event field, a builtin, a field of the correlated `after` event,
// a state (in `while`), `severity`/`rule` (in routes) or `value` (windowed rules).
void Checker::resolve_name(ExprContext& ctx, ast::Expr& e, ast::NameRef& ref) {
  const std::vector<ast::Ident>& parts = ref.name.parts;
  std::string text = ref.name.str();
  if (parts.empty()) return;

  if (ctx.place == Place::While) {
    if (const ast::StateDecl* s = resolve_state(*ctx.table, ref.name)) {
      ref.kind = ast::RefKind::State;
      ref.state = s;
      e.type = Type::of(TypeKind::State);
      if (!state_has_set_[s]) {
        diags_
            .warning(Code::StateNeverSet, e.range,
                     "state '" + s->name.name + "' is never set, so this is always false")
            .hints.push_back("add a `set on ...` transition to state " + s->name.name);
      }
    }
    return;
  }

  if (ctx.place == Place::Route) {
    if (text == "severity" || plan::severity_named(text)) {
      ref.kind = ast::RefKind::Severity;
      if (text != "severity") ref.builtin = text;
      e.type = Type::integer(8, false);
      e.type.enum_name = "severity";
    } else if (text == "rule") {
      ref.kind = ast::RefKind::Rule;
      e.type = Type::of(TypeKind::Str);
    } else {
      diags_.error(Code::UnknownField, e.range, "unknown name '" + text + "' in a route condition")
          .hints.push_back(
              "routes test `severity` (info, warning, error, critical) and `rule` (a rule's name)");
    }
    return;
  }

  if (ctx.place == Place::When) {
    if (text == "value" && ctx.value_type) {
      ref.kind = ast::RefKind::Value;
      e.type = *ctx.value_type;
      return;
    }
    diags_.error(Code::TypeMismatch, e.range, "'" + text + "' cannot be used on its own in `when`")
        .hints.push_back("aggregate a metric, e.g. `p99(" + text + ") over 1m > 50ms`");
    return;
  }

  if (ctx.event == nullptr) return;  // unresolved event: reported already
  const ast::EventDecl& ev = *ctx.event;
  if (parts.size() == 1) {
    const std::string& name = parts[0].name;
    if (const ast::FieldDecl* f = find_field(ev, name)) {
      ref.kind = ast::RefKind::EventField;
      ref.field = f;
      e.type = f->type.type;
      check_index(e, ref, f->type.array_len);
      return;
    }
    if (ref.index >= 0) {
      check_index(e, ref, 0);
      ref.index = -1;
    }
    if (name == "duration" || name == "pending") {
      if (!ev.is_span) {
        diags_
            .error(Code::NotASpan, e.range,
                   "'" + name + "' needs a span, but " + event_name(ev) + " is a point")
            .hints.push_back(fields_hint(ev));
        return;
      }
      if (name == "pending" && &e != ctx.pending_ok) {
        diags_
            .error(Code::TypeMismatch, e.range,
                   "'pending' can only be used on its own, as `where pending > DURATION`")
            .hints.push_back(
                "it means \"still in flight after DURATION\"; use `duration` to test finished calls");
        return;
      }
      ref.kind = ast::RefKind::Builtin;
      ref.builtin = name;
      e.type = duration_type();
      return;
    }
    if (auto type = builtin_type(name)) {
      ref.kind = ast::RefKind::Builtin;
      ref.builtin = name;
      e.type = *type;
      return;
    }
  } else if (ctx.after && ctx.after->resolved && ref.name.str().rfind(ctx.after->event.str() + ".", 0) == 0 &&
             parts.size() == ctx.after->event.parts.size() + 1) {
    const ast::EventDecl& other = *ctx.after->resolved;
    const std::string& name = parts.back().name;
    ref.event = &other;
    if (const ast::FieldDecl* f = find_field(other, name)) {
      ref.kind = ast::RefKind::OtherEvent;
      ref.field = f;
      e.type = f->type.type;
      return;
    }
    if (name == "duration" && other.is_span) {
      ref.kind = ast::RefKind::OtherEvent;
      ref.builtin = name;
      e.type = duration_type();
      return;
    }
    ref.event = nullptr;
    diags_.error(Code::UnknownField, e.range, "unknown field '" + name + "' of " + event_name(other))
        .hints.push_back(event_name(other) + " has fields: " + [&] {
          std::vector<std::string> names;
          for (const ast::FieldDecl& f : other.fields) names.push_back(f.name.name);
          if (other.is_span) names.push_back("duration");
          return join(names);
        }());
    return;
  }
  diag::Diagnostic& d =
      diags_.error(Code::UnknownField, e.range, "unknown field '" + text + "' of " + event_name(ev));
  std::vector<std::string> names;
  for (const ast::FieldDecl& f : ev.fields) names.push_back(f.name.name);
  if (ev.is_span) names.push_back("duration");
  for (const char* b : kBuiltins) names.push_back(b);
  for (const char* b : kIdentityNames) names.push_back(b);
  if (auto best = closest(text, names)) d.hints.push_back("did you mean " + *best + "?");
  d.hints.push_back(fields_hint(ev));
}

// `args[1]` needs an array field and an index within it; an array field needs an index.
void Checker::check_index(ast::Expr& e, ast::NameRef& ref, uint32_t array_len) {
  std::string name = ref.name.str();
  if (ref.index < 0) {
    if (array_len == 0) return;
    diags_
        .error(Code::BadIndex, e.range,
               "'" + name + "' is an array of " + std::to_string(array_len) + ": read one element")
        .hints.push_back("e.g. `" + name + "[0]`");
    e.type = Type{};
    return;
  }
  if (array_len == 0) {
    diags_.error(Code::BadIndex, ref.index_range, "'" + name + "' is not an array")
        .hints.push_back("write `" + name + "` without an index");
    e.type = Type{};
    return;
  }
  if (static_cast<uint64_t>(ref.index) >= array_len) {
    diags_
        .error(Code::BadIndex, ref.index_range,
               "index " + std::to_string(ref.index) + " is past the end of '" + name + "' (" +
                   std::to_string(array_len) + " elements)")
        .hints.push_back("indexes run from 0 to " + std::to_string(array_len - 1));
    e.type = Type{};
  }
}

// `count * 4`, `(cmd >> 8) & 0xff`: integers only. Units: + - % need the same unit on both
// sides; * takes at most one; / of two like units is a plain number; bit operations and shifts
// take plain numbers.
void Checker::check_arithmetic(ast::Expr& e, ast::Binary& b) {
  ast::Expr& l = *b.lhs;
  ast::Expr& r = *b.rhs;
  const char* op = ast::to_string(b.op);
  e.type = Type{};
  for (ast::Expr* side : {&l, &r}) {
    if (side->type.kind == TypeKind::Unknown) return;
    if (side->type.kind != TypeKind::Int || is_severity(side->type)) {
      diags_.error(Code::TypeMismatch, side->range,
                   std::string("`") + op + "` needs numbers, but this is " + describe(side->type));
      return;
    }
  }
  Unit lu = l.type.unit, ru = r.type.unit, unit = lu;
  auto mismatch = [&](const std::string& what) { diags_.error(Code::UnitMismatch, e.range, what); };
  switch (b.op) {
    case ast::BinaryOp::Add:
    case ast::BinaryOp::Sub:
    case ast::BinaryOp::Mod:
      if (lu != ru) {
        ast::Expr& odd = int_literal(r) || !int_literal(l) ? r : l;
        ast::Expr& anchor = &odd == &r ? l : r;
        if (odd.type.unit == Unit::None && int_literal(odd)) {
          diags_
              .error(Code::MissingUnit, odd.range,
                     "'" + std::string(odd.range.text()) + "' needs a unit: '" +
                         std::string(anchor.range.text()) + "' is " + describe(anchor.type))
              .hints.push_back(unit_example(odd, anchor.type.unit));
        } else {
          mismatch(std::string("`") + op + "` needs the same unit on both sides, not " + describe(l.type) +
                   " and " + describe(r.type));
        }
        return;
      }
      break;
    case ast::BinaryOp::Mul:
      if (lu != Unit::None && ru != Unit::None) {
        mismatch("cannot multiply " + describe(l.type) + " by " + describe(r.type));
        return;
      }
      unit = lu != Unit::None ? lu : ru;
      break;
    case ast::BinaryOp::Div:
      if (ru != Unit::None && lu != ru) {
        mismatch("cannot divide " + describe(l.type) + " by " + describe(r.type));
        return;
      }
      unit = lu == ru ? Unit::None : lu;
      break;
    default:  // << >> & ^ |
      if (lu != Unit::None || ru != Unit::None) {
        mismatch(std::string("`") + op + "` takes plain numbers, not " +
                 describe(lu != Unit::None ? l.type : r.type));
        return;
      }
      break;
  }
  if ((b.op == ast::BinaryOp::Div || b.op == ast::BinaryOp::Mod) && int_literal(r) && literal_value(r) == 0) {
    diags_.error(Code::BadOperand, r.range, std::string("`") + op + "` by zero");
    return;
  }
  if ((b.op == ast::BinaryOp::Shl || b.op == ast::BinaryOp::Shr) && int_literal(r) &&
      (literal_value(r) < 0 || literal_value(r) > 63)) {
    diags_.error(Code::BadOperand, r.range, "a shift by " + std::to_string(literal_value(r)) + " bits")
        .hints.push_back("values are 64 bits: shift by 0 to 63");
    return;
  }
  // Signed when a signed value takes part (a literal alone does not make it signed).
  bool is_signed = (l.type.is_signed && !int_literal(l)) || (r.type.is_signed && !int_literal(r)) ||
                   (int_literal(l) && int_literal(r));
  e.type = Type::integer(64, is_signed, unit);
}

// `[1B, 2B, 4B][i]`: entries of one unit, a plain-number index.
void Checker::check_table(ExprContext& ctx, ast::Expr& e, ast::Table& table) {
  if (!table.index) return;
  check_expr(ctx, *table.index);
  Unit unit = Unit::None;
  for (size_t i = 0; i < table.entries.size(); ++i) {
    ast::Expr& entry = *table.entries[i];
    unit = i == 0 ? std::get<ast::IntLit>(entry.node).unit : unit;
    entry.type = Type::integer(64, true, std::get<ast::IntLit>(entry.node).unit);
    if (entry.type.unit != unit) {
      diags_
          .error(Code::UnitMismatch, entry.range,
                 "table entries need one unit, but this is " + describe(entry.type))
          .hints.push_back("the first entry is " + describe(table.entries[0]->type));
      return;
    }
  }
  const Type& it = table.index->type;
  if (it.kind != TypeKind::Unknown && (it.kind != TypeKind::Int || it.unit != Unit::None)) {
    diags_.error(Code::TypeMismatch, table.index->range,
                 "a table index must be a plain number, not " + describe(it));
    return;
  }
  e.type = Type::integer(64, false, unit);
}

// `fd_is(fd, "nvidia*")`: the current process's file descriptor names a file (the last part of
// its path) equal to the string, or starting with it when it ends with `*`.
void Checker::check_fd_is(ExprContext& ctx, ast::Expr& e, ast::Call& call) {
  e.type = bool_type();
  if (call.window) diags_.error(Code::TypeMismatch, call.window->range, "`fd_is` takes no window");
  if (call.args.size() != 2 || !call.args[0] || !call.args[1]) {
    diags_.error(Code::TypeMismatch, call.function.range,
                 "`fd_is` takes a file descriptor and a name: fd_is(fd, \"nvidia*\")");
    return;
  }
  check_expr(ctx, *call.args[0]);
  const Type& fd = call.args[0]->type;
  if (fd.kind != TypeKind::Unknown && (fd.kind != TypeKind::Int || fd.unit != Unit::None))
    diags_.error(Code::TypeMismatch, call.args[0]->range,
                 "`fd_is` needs a file descriptor (an integer), not " + describe(fd));
  const auto* name = std::get_if<ast::StrLit>(&call.args[1]->node);
  if (!name) {
    diags_.error(Code::TypeMismatch, call.args[1]->range,
                 "`fd_is` needs a constant name: \"nvidiactl\" or \"nvidia*\"");
    return;
  }
  call.args[1]->type = Type::of(TypeKind::Str);
  size_t star = name->value.find('*');
  if (name->value.empty() || name->value.size() > 32 ||
      (star != std::string::npos && star + 1 != name->value.size()))
    diags_.error(Code::BadOperand, call.args[1]->range,
                 "`fd_is` matches a name of 1 to 32 bytes, with `*` only at the end");
}

namespace {

const ast::NameRef* identity_ref(const ast::Expr& e) {
  const auto* ref = std::get_if<ast::NameRef>(&e.node);
  return ref && ref->kind == ast::RefKind::Builtin && is_identity_name(ref->builtin) ? ref : nullptr;
}

}  // namespace

// `container == "..."`, `pod startswith "web-"`: the kernel knows only the cgroup id, so an
// identity test is a bit user space sets per cgroup (docs/language.md): one name, one constant
// string, ==, != or startswith. Returns true when `b` is (or misuses) an identity test.
bool Checker::check_identity_test(const ast::Binary& b) {
  const ast::NameRef* lref = identity_ref(*b.lhs);
  const ast::NameRef* rref = identity_ref(*b.rhs);
  if (!lref && !rref) return false;
  const ast::Expr& name_side = lref ? *b.lhs : *b.rhs;
  const ast::Expr& other = lref ? *b.rhs : *b.lhs;
  const std::string& name = (lref ? lref : rref)->builtin;
  bool op_ok = b.op == ast::BinaryOp::Eq || b.op == ast::BinaryOp::Ne ||
               (b.op == ast::BinaryOp::StartsWith && lref != nullptr);
  if (op_ok && std::holds_alternative<ast::StrLit>(other.node)) return true;
  diags_
      .error(Code::BadIdentityTest, op_ok ? other.range : name_side.range,
             "'" + name + "' can only be compared with a constant string (==, != or startswith)")
      .hints.push_back("e.g. `" + name + " == \"" + (name == "namespace" ? "prod" : "web") + "\"` or `" +
                       name + " in (\"a\", \"b\")`");
  return true;
}

// In the kernel a task or object name (`comm`, a name field) is at most 15 bytes and a NUL: a
// longer constant can never be equal to it, or a prefix of it.
void Checker::check_name_constant(const ExprContext& ctx, const ast::Binary& b) {
  constexpr size_t kMaxName = 15;
  if (ctx.place == Place::Route) return;  // route conditions compare rule names, in user space
  const auto* lit = std::get_if<ast::StrLit>(&b.rhs->node);
  const ast::Expr* lit_side = b.rhs.get();
  if (!lit) lit = std::get_if<ast::StrLit>(&b.lhs->node), lit_side = b.lhs.get();
  if (!lit || lit->value.size() <= kMaxName) return;
  bool differs = b.op == ast::BinaryOp::Ne;
  diags_
      .warning(Code::RuleNeverFires, lit_side->range,
               "a name is at most " + std::to_string(kMaxName) + " bytes, so this " +
                   std::to_string(lit->value.size()) + "-byte constant " +
                   (differs ? "always differs from it" : "never matches"))
      .hints.push_back(
          "the kernel keeps only a name's first 15 bytes: test a prefix of at most 15 bytes "
          "with `startswith`");
}

void Checker::check_binary(ExprContext& ctx, ast::Expr& e, ast::Binary& b) {
  if (!b.lhs || !b.rhs) return;
  if (ast::is_arithmetic(b.op)) {
    if (ctx.place == Place::When || ctx.place == Place::Route) {
      diags_.error(Code::TypeMismatch, e.range,
                   "arithmetic is only for event values, in `where` and metrics");
      return;
    }
    if (ctx.place == Place::While) {
      e.type = bool_type();
      diags_.error(Code::NotBoolean, e.range, "`while` takes states combined with and, or, not")
          .hints.push_back("move comparisons to `where`");
      return;
    }
    check_expr(ctx, *b.lhs);
    check_expr(ctx, *b.rhs);
    check_arithmetic(e, b);
    return;
  }
  bool logical = b.op == ast::BinaryOp::And || b.op == ast::BinaryOp::Or;
  if (ctx.place == Place::While && !logical) {
    e.type = bool_type();
    diags_.error(Code::NotBoolean, e.range, "`while` takes states combined with and, or, not")
        .hints.push_back("move comparisons to `where`");
    return;
  }
  check_comparison_operands(ctx, b);
  ast::Expr& l = *b.lhs;
  ast::Expr& r = *b.rhs;
  e.type = bool_type();
  if (check_identity_test(b)) return;

  if (b.op == ast::BinaryOp::And || b.op == ast::BinaryOp::Or) {
    const char* word = b.op == ast::BinaryOp::And ? "and" : "or";
    for (ast::Expr* side : {&l, &r}) {
      TypeKind k = side->type.kind;
      if (k == TypeKind::Bool || k == TypeKind::Unknown ||
          (k == TypeKind::State && ctx.place == Place::While))
        continue;
      diags_.error(
          Code::NotBoolean, side->range,
          std::string("`") + word + "` needs conditions on both sides, but this is " + describe(side->type));
    }
    return;
  }
  const Type& lt = l.type;
  const Type& rt = r.type;
  if (lt.kind == TypeKind::Unknown || rt.kind == TypeKind::Unknown) return;
  bool ordering = b.op == ast::BinaryOp::Lt || b.op == ast::BinaryOp::Le || b.op == ast::BinaryOp::Gt ||
                  b.op == ast::BinaryOp::Ge;

  if (b.op == ast::BinaryOp::StartsWith) {
    for (ast::Expr* side : {&l, &r})
      if (side->type.kind != TypeKind::Str) {
        diags_.error(Code::TypeMismatch, side->range,
                     "`startswith` needs strings, but this is " + describe(side->type));
        return;
      }
    check_name_constant(ctx, b);
    return;
  }
  if (is_severity(lt) || is_severity(rt)) {
    if (is_severity(lt) && is_severity(rt)) return;
    ast::Expr& odd = is_severity(lt) ? r : l;
    diags_.error(Code::TypeMismatch, odd.range, "severity can only be compared with a severity word")
        .hints.push_back("severities are info, warning, error, critical");
    return;
  }
  if (lt.kind == TypeKind::Str || rt.kind == TypeKind::Str) {
    if (lt.kind == rt.kind && !ordering) return check_name_constant(ctx, b);
    if (lt.kind == rt.kind) {
      diags_.error(Code::TypeMismatch, e.range, "strings can only be compared with == and !=")
          .hints.push_back("use `startswith` to test a prefix");
      return;
    }
    diags_.error(Code::TypeMismatch, e.range, "cannot compare " + operand(l) + " with " + operand(r));
    return;
  }
  if (lt.kind == TypeKind::Ptr || rt.kind == TypeKind::Ptr) {
    ast::Expr& other = lt.kind == TypeKind::Ptr ? r : l;
    bool zero = int_literal(other) && literal_value(other) == 0 && other.type.unit == Unit::None;
    if ((other.type.kind == TypeKind::Ptr || zero) && !ordering) return;
    diags_
        .error(Code::TypeMismatch, ordering ? e.range : other.range,
               ordering ? std::string("pointers can only be compared with == and !=")
                        : "a pointer can only be compared with 0 or another pointer")
        .hints.push_back("e.g. `" + std::string((lt.kind == TypeKind::Ptr ? l : r).range.text()) + " != 0`");
    return;
  }
  if (lt.kind == TypeKind::Bool || rt.kind == TypeKind::Bool) {
    if (lt.kind == rt.kind && !ordering) return;
    diags_.error(Code::TypeMismatch, e.range, "cannot compare " + operand(l) + " with " + operand(r));
    return;
  }
  if (lt.kind != TypeKind::Int || rt.kind != TypeKind::Int) {
    diags_.error(Code::TypeMismatch, e.range, "cannot compare " + operand(l) + " with " + operand(r));
    return;
  }
  if (lt.unit == rt.unit) return;
  // Point at the side that looks wrong: the literal, or else the right-hand side.
  bool right_is_odd = int_literal(r) || !int_literal(l);
  ast::Expr& odd = right_is_odd ? r : l;
  ast::Expr& anchor = right_is_odd ? l : r;
  if (odd.type.unit == Unit::None && int_literal(odd)) {
    diags_
        .error(Code::MissingUnit, odd.range,
               "'" + std::string(odd.range.text()) + "' needs a unit: '" + std::string(anchor.range.text()) +
                   "' is " + describe(anchor.type))
        .hints.push_back(unit_example(odd, anchor.type.unit));
    return;
  }
  diag::Diagnostic& d =
      diags_.error(Code::UnitMismatch, odd.range,
                   "cannot compare " + describe(anchor.type) + " with " + describe(odd.type));
  if (anchor.type.unit == Unit::Duration) d.hints.push_back(kDurationUnits);
  if (anchor.type.unit == Unit::Bytes) d.hints.push_back(kBytesUnits);
  if (anchor.type.unit == Unit::None)
    d.hints.push_back("'" + std::string(anchor.range.text()) + "' is a plain number");
}

void Checker::check_expr(ExprContext& ctx, ast::Expr& e) {
  std::visit(
      [&](auto& node) {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<T, ast::IntLit>) {
          e.type = Type::integer(64, true, node.unit);
        } else if constexpr (std::is_same_v<T, ast::StrLit>) {
          e.type = Type::of(TypeKind::Str);
        } else if constexpr (std::is_same_v<T, ast::BoolLit>) {
          e.type = bool_type();
          if (ctx.place == Place::While)
            diags_.error(Code::NotBoolean, e.range, "`while` takes states combined with and, or, not")
                .hints.push_back("move conditions to `where`");
        } else if constexpr (std::is_same_v<T, ast::NameRef>) {
          resolve_name(ctx, e, node);
        } else if constexpr (std::is_same_v<T, ast::Unary>) {
          if (!node.operand) return;
          check_expr(ctx, *node.operand);
          const Type& t = node.operand->type;
          if (node.op == ast::UnaryOp::Not) {
            e.type = bool_type();
            bool ok = t.kind == TypeKind::Bool || t.kind == TypeKind::Unknown ||
                      (t.kind == TypeKind::State && ctx.place == Place::While);
            if (!ok)
              diags_.error(Code::NotBoolean, node.operand->range,
                           "`not` needs a condition, but this is " + describe(t));
          } else {
            e.type = t;
            e.type.is_signed = true;
            if (t.kind != TypeKind::Int && t.kind != TypeKind::Unknown)
              diags_.error(Code::TypeMismatch, e.range, "cannot negate " + describe(t));
          }
        } else if constexpr (std::is_same_v<T, ast::Binary>) {
          check_binary(ctx, e, node);
        } else if constexpr (std::is_same_v<T, ast::Table>) {
          check_table(ctx, e, node);
        } else if constexpr (std::is_same_v<T, ast::Call>) {
          if (node.function.name == "fd_is" && ctx.place == Place::Where) {
            check_fd_is(ctx, e, node);
            return;
          }
          if (ctx.place != Place::When) {
            diags_
                .error(Code::UnknownFunction, node.function.range,
                       "'" + node.function.name + "' can only be used in a windowed rule's `when`")
                .hints.push_back("e.g. `when p99(sync_latency) over 1m > 50ms`");
            for (ast::ExprPtr& a : node.args)
              if (a) a->type = Type{};
            return;
          }
          resolve_call(ctx, e, node);
        }
      },
      e.node);
  if (ctx.place == Place::While && e.type.kind != TypeKind::State && e.type.kind != TypeKind::Unknown &&
      !std::holds_alternative<ast::Binary>(e.node) && !std::holds_alternative<ast::Unary>(e.node) &&
      !std::holds_alternative<ast::BoolLit>(e.node)) {
    diags_.error(Code::NotBoolean, e.range, "`while` takes states combined with and, or, not")
        .hints.push_back("move conditions to `where`");
  }
}

}  // namespace seam::check
