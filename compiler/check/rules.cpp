// Rules: an event rule (`on EVENT where ... while ... after ...`) or a windowed rule (`when
// AGGREGATE(metric) over D ...`), with its alert, message holes, `with` items and limit.
#include <algorithm>

#include "compiler/ast/limit_scope.hpp"
#include "compiler/check/checker.hpp"
#include "compiler/check/suggest.hpp"

namespace seam::check {

using ast::Type;
using ast::TypeKind;
using diag::Code;

namespace {

const char* const kWithBuiltins[] = {"ustack", "kstack", "pystack", "stack", "pid", "tid",
                                     "comm",   "cgroup", "uid",     "cpu",   "time"};

const ast::Call* first_call(const ast::Expr& e) {
  if (const auto* c = std::get_if<ast::Call>(&e.node)) return c;
  if (const auto* u = std::get_if<ast::Unary>(&e.node); u && u->operand) return first_call(*u->operand);
  if (const auto* b = std::get_if<ast::Binary>(&e.node)) {
    if (b->lhs)
      if (const ast::Call* c = first_call(*b->lhs)) return c;
    if (b->rhs) return first_call(*b->rhs);
  }
  return nullptr;
}

const ast::Expr* call_expr(const ast::Expr& e) {
  if (std::holds_alternative<ast::Call>(e.node)) return &e;
  if (const auto* u = std::get_if<ast::Unary>(&e.node); u && u->operand) return call_expr(*u->operand);
  if (const auto* b = std::get_if<ast::Binary>(&e.node)) {
    if (b->lhs)
      if (const ast::Expr* c = call_expr(*b->lhs)) return c;
    if (b->rhs) return call_expr(*b->rhs);
  }
  return nullptr;
}

// `pending > DURATION` exactly: the one form in which `pending` may appear.
const ast::Expr* pending_form(const ast::Expr* where) {
  if (!where) return nullptr;
  const auto* b = std::get_if<ast::Binary>(&where->node);
  if (!b || b->op != ast::BinaryOp::Gt || !b->lhs || !b->rhs) return nullptr;
  const auto* ref = std::get_if<ast::NameRef>(&b->lhs->node);
  if (!ref || ref->name.str() != "pending") return nullptr;
  return b->lhs.get();
}

bool uprobe_based(const ast::EventDecl& e) {
  for (const auto* probes : {&e.begin, &e.end})
    for (const ast::ProbeSpec& p : *probes)
      if (p.kind == ast::ProbeKind::Call || p.kind == ast::ProbeKind::Uprobe ||
          p.kind == ast::ProbeKind::Uretprobe || p.kind == ast::ProbeKind::Usdt)
        return true;
  return false;
}

}  // namespace

// A `{name}` hole in an alert message: resolved like a name in `where`, but reported as E0503.
void Checker::resolve_hole(ExprContext& ctx, ast::MessagePart& part) {
  ast::NameRef& ref = part.ref;
  if (ref.name.parts.empty()) {
    // The parser gives the hole's text; split it into parts pointing into the string.
    size_t start = 0;
    while (start <= part.text.size()) {
      size_t dot = part.text.find('.', start);
      if (dot == std::string::npos) dot = part.text.size();
      SourceRange r = part.range;
      r.begin = part.range.begin + start;
      r.end = part.range.begin + dot;
      ref.name.parts.push_back({part.text.substr(start, dot - start), r});
      start = dot + 1;
    }
    ref.name.range = part.range;
  }
  std::string text = ref.name.str();
  if (ctx.value_type) {
    if (text == "value") {
      ref.kind = ast::RefKind::Value;
      return;
    }
    diags_.error(Code::BadInterpolation, part.range, "unknown field '{" + text + "}' in the message")
        .hints.push_back("a windowed rule's message can use {value}");
    return;
  }
  if (!ctx.event) return;
  const ast::EventDecl& ev = *ctx.event;
  if (text == "value") {
    diags_.error(Code::BadInterpolation, part.range, "{value} is only set in windowed rules (`when ...`)")
        .hints.push_back(fields_hint(ev));
    return;
  }
  if (text == "pending") {
    diags_.error(Code::BadInterpolation, part.range, "{pending} cannot be printed")
        .hints.push_back(fields_hint(ev));
    return;
  }
  if (is_identity_name(text)) {  // known in user space, from the cgroup: never in the record
    diags_.error(Code::BadInterpolation, part.range, "{" + text + "} cannot be printed in a message")
        .hints.push_back("every alert carries its container and pod (container_id, pod, namespace)");
    return;
  }
  if (ref.name.parts.size() >= 2 && ctx.after && !ctx.after->resolved) return;  // `after` reported
  if (ref.name.parts.size() >= 2 && !ctx.after) {
    ast::QualName prefix = ref.name;
    prefix.parts.pop_back();
    if (const ast::EventDecl* other = resolve_event(*ctx.table, prefix, Code::UnknownEvent, false)) {
      diags_
          .error(Code::BadInterpolation, part.range,
                 "{" + text + "} needs the rule to correlate with " + event_name(*other))
          .hints.push_back("add `after " + prefix.str() + " within 100ms`");
      return;
    }
  }
  // Resolve as an expression name, then turn its complaint into a message-specific one.
  ast::Expr probe;
  probe.range = part.range;
  probe.node = ref;
  diag::Diagnostics quiet;
  std::swap(quiet, diags_);
  resolve_name(ctx, probe, std::get<ast::NameRef>(probe.node));
  std::swap(quiet, diags_);
  if (quiet.all().empty()) {
    ref = std::get<ast::NameRef>(probe.node);
    return;
  }
  const diag::Diagnostic& first = quiet.all().front();
  if (first.code == Code::NotASpan) {
    diags_.append(quiet);
    return;
  }
  diag::Diagnostic& d =
      diags_.error(Code::BadInterpolation, part.range, "unknown field '{" + text + "}' in the message");
  d.hints = first.hints;
  if (d.hints.empty()) d.hints.push_back(fields_hint(ev));
}

void Checker::check_never_fires(const ast::RuleDecl& r, const ast::Expr& where) {
  if (const auto* b = std::get_if<ast::Binary>(&where.node)) {
    if (b->op == ast::BinaryOp::And) {
      if (b->lhs) check_never_fires(r, *b->lhs);
      if (b->rhs) check_never_fires(r, *b->rhs);
      return;
    }
    if (!b->lhs || !b->rhs) return;
    // unsigned < 0, unsigned <= -1, and the mirrored forms
    const ast::Expr* value = nullptr;
    const ast::IntLit* bound = nullptr;
    bool strict = false;
    if (b->op == ast::BinaryOp::Lt || b->op == ast::BinaryOp::Le) {
      value = b->lhs.get();
      bound = std::get_if<ast::IntLit>(&b->rhs->node);
      strict = b->op == ast::BinaryOp::Lt;
    } else if (b->op == ast::BinaryOp::Gt || b->op == ast::BinaryOp::Ge) {
      value = b->rhs.get();
      bound = std::get_if<ast::IntLit>(&b->lhs->node);
      strict = b->op == ast::BinaryOp::Gt;
    }
    if (!value || !bound || value->type.kind != TypeKind::Int || value->type.is_signed) return;
    if (std::holds_alternative<ast::IntLit>(value->node)) return;
    if (bound->value > 0 || (!strict && bound->value >= 0)) return;
    diags_
        .warning(Code::RuleNeverFires, where.range,
                 "rule '" + r.name.name + "' can never fire: '" + std::string(value->range.text()) +
                     "' is never below 0")
        .hints.push_back("'" + std::string(value->range.text()) + "' is " + describe(value->type) +
                         ", which is unsigned");
    return;
  }
  if (const auto* lit = std::get_if<ast::BoolLit>(&where.node); lit && !lit->value) {
    diags_.warning(Code::RuleNeverFires, where.range,
                   "rule '" + r.name.name + "' can never fire: its condition is always false");
  }
}

void Checker::check_rule(Table& t, ast::RuleDecl& r) {
  ExprContext ctx;
  ctx.table = &t;
  ctx.rule = &r;
  bool windowed = r.when != nullptr;
  SourceRange at = r.name.range.valid() ? r.name.range : r.range;

  if (windowed && r.event) {
    diags_.error(Code::BadWindow, r.event->range, "a windowed rule (`when`) cannot also have `on`")
        .hints.push_back("watch a metric in `when`, or drop `when` and test the event in `where`");
  }
  if (!windowed && !r.event) {
    diags_.error(Code::MissingClause, at, "rule '" + r.name.name + "' needs `on EVENT` or `when AGGREGATE`")
        .hints.push_back("e.g. `on cuda.stream_sync where duration > 10ms`");
  }
  if (!r.alert) {
    diags_.error(Code::MissingClause, at, "rule '" + r.name.name + "' has no `alert`")
        .hints.push_back("add `alert warning \"...\"`");
  }

  if (r.event && !windowed) {
    r.resolved_event = resolve_event(t, *r.event);
    ctx.event = r.resolved_event;
    ctx.event_failed = !ctx.event;
  }
  if (r.after) {
    if (windowed)
      diags_.error(Code::BadWindow, r.after->range, "a windowed rule cannot have `after`")
          .hints.push_back("correlate in an event rule instead");
    r.after->resolved = resolve_event(t, r.after->event);
    if (r.after->within) {
      check_expr(ctx, *r.after->within);
      require_duration(*r.after->within, "`within`");
    }
    ctx.after = &*r.after;
  }
  if (r.where) {
    if (windowed)
      diags_.error(Code::BadWindow, r.where->range, "a windowed rule cannot have `where`")
          .hints.push_back("filter in the metric: `metric NAME on EVENT where ...`");
    ctx.place = Place::Where;
    ctx.pending_ok = pending_form(r.where.get());
    check_expr(ctx, *r.where);
    require_boolean(*r.where, "where");
    if (ctx.pending_ok && r.where->type.kind == TypeKind::Bool) {
      auto& b = std::get<ast::Binary>(r.where->node);
      require_duration(*b.rhs, "'pending'");
    }
    if (ctx.event) check_never_fires(r, *r.where);
  }
  if (r.while_) {
    if (windowed)
      diags_.error(Code::BadWindow, r.while_->range, "a windowed rule cannot have `while`")
          .hints.push_back("`while` tests thread or process state when an event happens");
    ctx.place = Place::While;
    check_expr(ctx, *r.while_);
  }
  if (r.when) {
    ctx.place = Place::When;
    check_expr(ctx, *r.when);
    require_boolean(*r.when, "when");
    const ast::Expr* call = call_expr(*r.when);
    if (!first_call(*r.when)) {
      diags_.error(Code::BadWindow, r.when->range, "`when` needs an aggregate over a metric")
          .hints.push_back("e.g. `when p99(sync_latency) over 1m > 50ms`");
    }
    ctx.value_type = call ? call->type : Type{};
  }

  if (r.alert) {
    ast::Alert& a = *r.alert;
    static const char* const kSeverities[] = {"info", "warning", "error", "critical"};
    const std::string& word = a.severity_word.name;
    if (word.empty()) {
      if (!a.severity) a.severity = ast::Severity::Warning;
    } else {
      auto it = std::find(std::begin(kSeverities), std::end(kSeverities), word);
      if (it == std::end(kSeverities)) {
        diag::Diagnostic& d =
            diags_.error(Code::UnknownSeverity, a.severity_word.range, "unknown severity '" + word + "'");
        if (auto best =
                closest(word, std::vector<std::string>(std::begin(kSeverities), std::end(kSeverities))))
          d.hints.push_back("did you mean " + *best + "?");
        d.hints.push_back("severities are info, warning, error, critical");
        a.severity = ast::Severity::Warning;
      } else {
        a.severity = static_cast<ast::Severity>(it - std::begin(kSeverities));
      }
    }
    ctx.place = Place::Where;  // holes name fields as `where` does
    ctx.pending_ok = nullptr;
    for (ast::MessagePart& part : a.message)
      if (part.is_hole) resolve_hole(ctx, part);
  }

  const ast::Ident* stack = nullptr;
  for (const ast::Ident& item : r.with) {
    if ((item.name == "ustack" || item.name == "kstack" || item.name == "stack" || item.name == "pystack") &&
        !stack)
      stack = &item;
    if ((item.name == "pystack" || item.name == "stack") && !modules_.count("python"))
      diags_
          .error(
              Code::BadWithItem, item.range,
              "`with " + item.name + "` reads Python frames through the python module, which is not loaded")
          .hints.push_back("the module is stdlib/python.seam; run with the standard library");
    if (std::find(std::begin(kWithBuiltins), std::end(kWithBuiltins), item.name) != std::end(kWithBuiltins))
      continue;
    if (ctx.event && find_field(*ctx.event, item.name)) continue;
    if (!ctx.event && ctx.event_failed) continue;
    std::vector<std::string> known(std::begin(kWithBuiltins), std::end(kWithBuiltins));
    std::vector<std::string> fields;
    if (ctx.event)
      for (const ast::FieldDecl& f : ctx.event->fields) fields.push_back(f.name.name);
    std::vector<std::string> all = known;
    all.insert(all.end(), fields.begin(), fields.end());
    diag::Diagnostic& d =
        diags_.error(Code::BadWithItem, item.range, "unknown `with` item '" + item.name + "'");
    if (auto best = closest(item.name, all)) d.hints.push_back("did you mean " + *best + "?");
    std::string hint = "`with` takes " + join(known);
    if (ctx.event && !fields.empty())
      hint += " and the fields of " + event_name(*ctx.event) + ": " + join(fields);
    d.hints.push_back(hint);
  }

  if (r.group && r.group->within_ns <= 0)
    diags_.error(Code::BadGroup, r.group->range, "a group's window must be longer than 0")
        .hints.push_back("e.g. `group within 10s`");
  if (r.limit) {
    if (r.limit->count <= 0)
      diags_.error(Code::BadLimit, r.limit->range, "a limit must allow at least 1 alert")
          .hints.push_back("e.g. `limit 10 per 1m`");
    else if (r.limit->per_ns <= 0)
      diags_.error(Code::BadLimit, r.limit->range, "a limit's period must be longer than 0")
          .hints.push_back("e.g. `limit 10 per 1m`");
    check_limit_scope(r);
  } else if (stack && ctx.event && uprobe_based(*ctx.event)) {
    diags_
        .warning(Code::MissingLimitOnHotStack, stack->range,
                 "rule '" + r.name.name + "' collects stacks on every " + event_name(*ctx.event) +
                     " with no limit")
        .hints.push_back("add `limit 10 per 1m`");
  }
}

// `limit N per D per process`: only that word; a windowed rule needs a metric `by pid` to tell
// processes apart, otherwise its limit stays rule-wide (a warning says so).
void Checker::check_limit_scope(const ast::RuleDecl& r) {
  const std::optional<ast::Ident>& scope = r.limit->scope;
  if (!scope) return;
  if (scope->name != ast::kLimitScopeProcess) {
    diags_.error(Code::BadLimit, scope->range, "unknown limit scope '" + scope->name + "'")
        .hints.push_back(
            "a limit counts per rule (`limit 10 per 1m`) or per process (`limit 10 per 1m per process`)");
    return;
  }
  if (!r.when || ast::limit_per_process(r)) return;
  const ast::MetricDecl* m = ast::windowed_metric(*r.when);
  if (!m) return;
  diags_
      .warning(Code::LimitNotPerProcess, scope->range,
               "rule '" + r.name.name + "' limits per process, but metric '" + m->name.name +
                   "' is not `by pid`; the limit stays rule-wide")
      .hints.push_back("add pid to the metric's `by` labels, or drop `per process`");
}

}  // namespace seam::check
