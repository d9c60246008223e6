// Declarations other than rules: events and their probes, states, metrics, outputs and routes.
#include <algorithm>

#include "compiler/check/checker.hpp"
#include "compiler/check/suggest.hpp"

namespace seam::check {

using ast::ProbeKind;
using ast::Type;
using ast::TypeKind;
using diag::Code;

namespace {

const char* const kTypeNames[] = {"ptr", "bool", "str", "i8",  "i16",   "i32",     "i64",
                                  "u8",  "u16",  "u32", "u64", "bytes", "duration"};

std::optional<Type> type_keyword(std::string_view name) {
  if (name == "ptr") return Type::of(TypeKind::Ptr);
  if (name == "bool") return Type::of(TypeKind::Bool);
  if (name == "str") return Type::of(TypeKind::Str);
  if (name == "bytes") return Type::integer(64, false, ast::Unit::Bytes);
  if (name == "duration") return Type::integer(64, false, ast::Unit::Duration);
  if (name.size() >= 2 && (name[0] == 'i' || name[0] == 'u')) {
    std::string_view bits = name.substr(1);
    for (uint8_t b : {8, 16, 32, 64})
      if (bits == std::to_string(b)) return Type::integer(b, name[0] == 'i');
  }
  return std::nullopt;
}

bool uses_library(ProbeKind k) {
  return k == ProbeKind::Call || k == ProbeKind::Uprobe || k == ProbeKind::Uretprobe || k == ProbeKind::Usdt;
}

bool takes_symbol(ProbeKind k) {
  return k == ProbeKind::Call || k == ProbeKind::Uprobe || k == ProbeKind::Uretprobe ||
         k == ProbeKind::Kprobe || k == ProbeKind::Kretprobe || k == ProbeKind::Fentry ||
         k == ProbeKind::Fexit || k == ProbeKind::RawTracepoint;
}

}  // namespace

void Checker::check_probe(Table& t, ast::ProbeSpec& p) {
  SourceRange at = p.range;
  if (uses_library(p.kind) && !p.library_is_path && !p.library.name.empty()) resolve_library(t, p.library);
  if (takes_symbol(p.kind) && p.symbol.empty()) {
    diags_.error(Code::BadProbeTarget, at, std::string(ast::to_string(p.kind)) + " probe names no function")
        .hints.push_back("e.g. `uprobe cudart:cudaMalloc`");
  }
  switch (p.kind) {
    case ProbeKind::Uretprobe:
    case ProbeKind::Kretprobe:
    case ProbeKind::Fexit:
      if (p.offset != 0)
        diags_
            .error(Code::BadProbeTarget, at,
                   std::string("a ") + ast::to_string(p.kind) +
                       " fires at the function's return and takes no offset")
            .hints.push_back("remove `+" + std::to_string(p.offset) +
                             "`, or use a uprobe/kprobe at the offset");
      break;
    case ProbeKind::Usdt:
      if (p.category.empty() || p.name.empty())
        diags_.error(Code::BadProbeTarget, at, "a usdt probe needs a provider and a name")
            .hints.push_back("write `usdt LIBRARY:PROVIDER:NAME`");
      break;
    case ProbeKind::Tracepoint:
      if (p.category.empty() || p.name.empty())
        diags_.error(Code::BadProbeTarget, at, "a tracepoint needs a category and a name")
            .hints.push_back("e.g. `tracepoint sched:sched_switch`");
      break;
    case ProbeKind::Interval:
      if (p.interval_ns <= 0)
        diags_.error(Code::BadProbeTarget, at, "an interval must be longer than 0")
            .hints.push_back("e.g. `interval 1s`");
      break;
    case ProbeKind::Perf:
      if (p.period == 0 && p.frequency == 0)
        diags_.error(Code::BadProbeTarget, at, "a perf event needs a rate above 0")
            .hints.push_back("e.g. `perf cpu-clock at 99 hz` or `every 1000`");
      break;
    default:
      break;
  }
}

void Checker::check_span_key(Table& t, ast::EventDecl& e, ast::Expr& key) {
  auto* ref = std::get_if<ast::NameRef>(&key.node);
  if (!ref || ref->name.parts.size() != 1) {
    diags_.error(Code::BadSpanKey, key.range, "a span key must name one of the span's fields")
        .hints.push_back(fields_hint(e));
    return;
  }
  const std::string& name = ref->name.parts[0].name;
  const SourceRange& at = ref->name.parts[0].range;
  const ast::FieldDecl* f = find_field(e, name);
  if (!f) {
    diag::Diagnostic& d =
        diags_.error(Code::BadSpanKey, at, "span key '" + name + "' is not a field of " + event_name(e));
    std::vector<std::string> names;
    for (const ast::FieldDecl& field : e.fields) names.push_back(field.name.name);
    if (auto best = closest(name, names)) d.hints.push_back("did you mean " + *best + "?");
    d.hints.push_back(names.empty() ? "declare it after the probes: `(" + name + ": u32)`"
                                    : event_name(e) + " declares " + join(names));
    return;
  }
  ref->kind = ast::RefKind::EventField;
  ref->field = f;
  key.type = f->type.type;
  if (key.type.kind != TypeKind::Int && key.type.kind != TypeKind::Unknown) {
    diags_
        .error(Code::BadSpanKey, at,
               "span key '" + name + "' must be an integer field, but it is " + describe(key.type))
        .hints.push_back("keys match an end to its begin: a pid, tid, or id");
  }
}

void Checker::check_event(Table& t, ast::EventDecl& e) {
  std::map<std::string, const ast::FieldDecl*> seen;
  for (ast::FieldDecl& f : e.fields) {
    if (f.type.type.kind == TypeKind::Unknown) {
      if (auto known = type_keyword(f.type.name.name)) {
        f.type.type = *known;
      } else if (find_enum(t.module, f.type.name.name)) {
        f.type.type = ast::Type::integer(32, true);  // C enums are ints
        f.type.type.enum_name = f.type.name.name;
      } else {
        diag::Diagnostic& d =
            diags_.error(Code::UnknownType, f.type.name.range, "unknown type '" + f.type.name.name + "'");
        if (auto best = closest(f.type.name.name,
                                std::vector<std::string>(std::begin(kTypeNames), std::end(kTypeNames))))
          d.hints.push_back("did you mean " + *best + "?");
        d.hints.push_back("types are " +
                          join(std::vector<std::string>(std::begin(kTypeNames), std::end(kTypeNames))));
      }
    }
    auto [it, inserted] = seen.emplace(f.name.name, &f);
    if (!inserted)
      diags_.error(Code::DuplicateName, f.name.range, "field '" + f.name.name + "' is declared twice")
          .hints.push_back(first_declared(it->second->name.range));
  }
  for (auto* probes : {&e.begin, &e.end})
    for (ast::ProbeSpec& p : *probes) {
      check_probe(t, p);
      if (p.key) check_span_key(t, e, *p.key);
    }
  // Computed fields: an integer expression over the event's other fields, of the declared unit.
  for (ast::FieldDecl& f : e.fields) {
    if (!f.computed) continue;
    ExprContext ctx;
    ctx.table = &t;
    ctx.event = &e;
    check_expr(ctx, *f.computed);
    const ast::Type& got = f.computed->type;
    if (got.kind == TypeKind::Unknown) continue;
    if (got.kind != TypeKind::Int || got.unit != f.type.type.unit)
      diags_.error(
          Code::TypeMismatch, f.computed->range,
          "field '" + f.name.name + "' is " + describe(f.type.type) + ", but this is " + describe(got));
  }
}

// The states seam can read from a process's memory (runtime/python/ for cpython_gil).
constexpr const char* kStateReaders[] = {"cpython_gil"};

void Checker::check_state_reader(Table& t, ast::StateDecl& s) {
  bool known = false;
  for (const char* r : kStateReaders) known = known || s.reader.name == r;
  if (!known) {
    diags_
        .error(Code::BadStateReader, s.reader.range,
               "state '" + s.name.name + "' is read by '" + s.reader.name + "', which seam does not know")
        .hints.push_back("the readers are: cpython_gil");
    return;
  }
  if (s.scope != ast::StateScope::Thread)
    diags_.error(Code::BadStateReader, s.reader.range,
                 "state '" + s.name.name + "' is read from memory per thread: write `per thread`");
  if (!s.transitions.empty())
    diags_.error(Code::BadStateReader, s.transitions.front().range,
                 "state '" + s.name.name + "' is read from memory: it has no `set`/`clear` probes");
  resolve_library(t, s.reader_library);
}

void Checker::check_state(Table& t, ast::StateDecl& s) {
  if (!s.reader.name.empty()) {
    check_state_reader(t, s);
    state_has_set_[&s] = true;
    return;
  }
  bool has_set = false;
  for (ast::StateTransition& tr : s.transitions) {
    has_set = has_set || tr.sets;
    if (tr.when == ast::StateWhen::Event) {
      tr.resolved_event = resolve_event(t, tr.event);
      continue;
    }
    ast::ProbeSpec& p = tr.probe;
    std::string verb = std::string(tr.sets ? "set" : "clear") + " on " +
                       (tr.when == ast::StateWhen::Entry ? "entry" : "return") + " of " + p.symbol;
    if (p.library_is_path) continue;
    if (!p.library.name.empty()) {
      resolve_library(t, p.library);
      continue;
    }
    if (t.libraries.size() == 1) {
      // A bare symbol belongs to the module's only library: record which, for lowering.
      p.library.name = t.libraries.begin()->first;
      p.library.range = p.symbol_range;
      continue;
    }
    std::string where = t.module.empty() ? "this file" : "module " + t.module;
    diag::Diagnostic& d = diags_.error(
        Code::BadStateTransition, p.symbol_range.valid() ? p.symbol_range : tr.range,
        "`" + verb + "` does not say which library '" + p.symbol + "' is in: " + where + " declares " +
            std::to_string(t.libraries.size()) + (t.libraries.size() == 1 ? " library" : " libraries"));
    if (t.libraries.empty())
      d.hints.push_back("declare one: `library NAME = \"libNAME.so*\"`");
    else
      d.hints.push_back("write `" + t.libraries.begin()->first + ":" + p.symbol + "`");
  }
  state_has_set_[&s] = has_set;
}

void Checker::check_metric(Table& t, ast::MetricDecl& m) {
  ExprContext ctx;
  ctx.table = &t;
  m.resolved_event = resolve_event(t, m.event);
  ctx.event = m.resolved_event;
  ctx.event_failed = !ctx.event;
  // `after E within D` and `while STATE` as in an event rule (rules.cpp): the correlated event's
  // fields are readable in the `where`.
  if (m.after) {
    m.after->resolved = resolve_event(t, m.after->event);
    if (m.after->within) {
      check_expr(ctx, *m.after->within);
      require_duration(*m.after->within, "`within`");
    }
    ctx.after = &*m.after;
  }
  if (m.where) {
    ctx.place = Place::Where;
    check_expr(ctx, *m.where);
    require_boolean(*m.where, "where");
  }
  if (m.while_) {
    ctx.place = Place::While;
    check_expr(ctx, *m.while_);
    ctx.place = Place::Where;
  }
  if (m.value) {
    check_expr(ctx, *m.value);
    const Type& vt = m.value->type;
    if (vt.kind != TypeKind::Int && vt.kind != TypeKind::Unknown) {
      const char* kind = m.kind == ast::MetricKind::Sum ? "sum" : "hist";
      diags_
          .error(Code::TypeMismatch, m.value->range,
                 std::string("`") + kind + "` needs a number, but '" + std::string(m.value->range.text()) +
                     "' is " + describe(vt))
          .hints.push_back("e.g. `hist duration` or `sum size`");
    }
  }
  static const char* const kLabels[] = {"comm",      "cgroup",       "pid", "tid",
                                        "container", "container_id", "pod", "namespace"};
  for (const ast::Ident& label : m.by) {
    if (std::find(std::begin(kLabels), std::end(kLabels), label.name) != std::end(kLabels)) continue;
    if (size_t dot = label.name.rfind('.'); dot != std::string::npos) {
      // `by usdt.request_start.id`: a field of the `after` event, as remembered on the thread.
      std::string prefix = label.name.substr(0, dot), field = label.name.substr(dot + 1);
      const ast::EventDecl* after = m.after ? m.after->resolved : nullptr;
      if (m.after && !after) continue;  // reported at the `after`
      const ast::FieldDecl* f = after && prefix == m.after->event.str() ? find_field(*after, field) : nullptr;
      if (f && f->type.type.kind == TypeKind::Int) continue;
      diag::Diagnostic& d =
          diags_.error(Code::UnknownField, label.range,
                       f ? "label '" + label.name + "' is a string: labels of the `after` event are numbers"
                         : "unknown label '" + label.name + "'");
      if (!m.after)
        d.hints.push_back("a label EVENT.field needs `after EVENT within DURATION` in the metric");
      else if (!f)
        d.hints.push_back("the `after` event's fields are " + m.after->event.str() + ".FIELD");
      continue;
    }
    if (!ctx.event || find_field(*ctx.event, label.name)) continue;
    std::vector<std::string> labels(std::begin(kLabels), std::end(kLabels));
    std::vector<std::string> fields;
    for (const ast::FieldDecl& f : ctx.event->fields) fields.push_back(f.name.name);
    std::vector<std::string> all = labels;
    all.insert(all.end(), fields.begin(), fields.end());
    diag::Diagnostic& d = diags_.error(Code::UnknownField, label.range, "unknown label '" + label.name + "'");
    if (auto best = closest(label.name, all)) d.hints.push_back("did you mean " + *best + "?");
    std::string hint = "`by` takes " + join(labels);
    if (!fields.empty()) hint += " and the fields of " + event_name(*ctx.event) + ": " + join(fields);
    d.hints.push_back(hint);
  }
}

void Checker::check_output(ast::OutputDecl& o) {
  if (o.kind == ast::OutputKind::Webhook) {
    if (o.target.rfind("http://", 0) != 0 && o.target.rfind("https://", 0) != 0)
      diags_
          .error(Code::BadOutput, o.target_range.valid() ? o.target_range : o.range,
                 "a webhook needs an http:// or https:// URL")
          .hints.push_back("e.g. `webhook \"https://alerts.example/hook\"`");
    if (o.format && o.format->name != "json" && o.format->name != "alertmanager") {
      diag::Diagnostic& d =
          diags_.error(Code::BadOutput, o.format->range, "unknown webhook format '" + o.format->name + "'");
      if (auto best = closest(o.format->name, std::vector<std::string>{"json", "alertmanager"}))
        d.hints.push_back("did you mean " + *best + "?");
      d.hints.push_back("formats are json, alertmanager");
    }
  } else if (o.kind == ast::OutputKind::Json && o.target.empty()) {
    diags_
        .error(Code::BadOutput, o.target_range.valid() ? o.target_range : o.range,
               "a json output needs a file path")
        .hints.push_back("e.g. `json \"/var/log/seam/alerts.jsonl\"`");
  }
}

void Checker::check_route(Table& t, ast::RouteDecl& r) {
  if (r.condition) {
    ExprContext ctx;
    ctx.table = &t;
    ctx.place = Place::Route;
    check_expr(ctx, *r.condition);
    require_boolean(*r.condition, "route");
  }
  std::vector<std::string> known;
  for (const auto& [name, _] : outputs_) known.push_back(name);
  for (const ast::Ident& out : r.outputs) {
    if (outputs_.count(out.name)) continue;
    diag::Diagnostic& d = diags_.error(Code::UnknownOutput, out.range, "unknown output '" + out.name + "'");
    if (auto best = closest(out.name, known))
      d.hints.push_back("did you mean " + *best + "?");
    else
      d.hints.push_back("declare it: `output " + out.name + " = stdout`");
  }
}

}  // namespace seam::check
