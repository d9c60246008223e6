// Metrics are kept in the kernel: each `metric` becomes a per-CPU hash map updated where its
// event completes. Windowed rules (`when p99(m) over 1m > 50ms`) become plan::Windows that the
// runtime evaluates over snapshots of those maps.
#include <algorithm>

#include "compiler/lower/lowerer.hpp"
#include "compiler/lower/map_names.hpp"

namespace seam::lower {

namespace {

const ast::FieldDecl* find_field(const ast::EventDecl& event, const std::string& name) {
  for (const ast::FieldDecl& f : event.fields)
    if (f.name.name == name) return &f;
  return nullptr;
}

bool window_function(const std::string& name, plan::WindowFunction* fn, double* quantile) {
  static const std::pair<const char*, double> kQuantiles[] = {
      {"p50", 0.5}, {"p90", 0.9}, {"p95", 0.95}, {"p99", 0.99}, {"p999", 0.999}};
  for (const auto& [n, q] : kQuantiles)
    if (name == n) {
      *fn = plan::WindowFunction::Quantile;
      *quantile = q;
      return true;
    }
  static const std::pair<const char*, plan::WindowFunction> kOthers[] = {
      {"avg", plan::WindowFunction::Avg},   {"min", plan::WindowFunction::Min},
      {"max", plan::WindowFunction::Max},   {"count", plan::WindowFunction::Count},
      {"rate", plan::WindowFunction::Rate}, {"sum", plan::WindowFunction::Sum}};
  for (const auto& [n, f] : kOthers)
    if (name == n) {
      *fn = f;
      return true;
    }
  return false;
}

plan::Compare flip(plan::Compare c) {
  switch (c) {
    case plan::Compare::Gt:
      return plan::Compare::Lt;
    case plan::Compare::Ge:
      return plan::Compare::Le;
    case plan::Compare::Lt:
      return plan::Compare::Gt;
    case plan::Compare::Le:
      return plan::Compare::Ge;
    default:
      return c;
  }
}

}  // namespace

void Lowerer::lower_metric(const ast::MetricDecl& decl) {
  const ast::EventDecl* event = decl.resolved_event;
  if (!event) return;
  bool self_after = decl.after && decl.after->resolved == event;
  SyscallVariant variant(*this, self_after ? nullptr : event, decl.where.get());
  plan::Metric m;
  m.name = decl.name.name;
  m.map = map_names_.name(kMetricMap, m.name, "metric " + m.name);  // unique in the set (the checker's)
  m.kind = static_cast<plan::MetricKind>(decl.kind);
  m.help = decl.doc;
  m.origin = origin_of(decl.range);
  plan::MetricUpdate update;
  update.metric = static_cast<int>(program.plan.metrics.size());
  // The `where` and the value read event fields like a rule on the same event does.
  ast::RuleDecl as_rule;
  as_rule.resolved_event = event;
  as_rule.range = decl.range;
  // `after E within D` and `while S` test what a rule's do, where the event completes.
  int correlation = -1;
  if (decl.after && decl.after->resolved) {
    correlation = correlation_index(*decl.after->resolved);
    event_sites(*decl.after->resolved);
  }
  std::vector<plan::Cond> parts;
  if (decl.where) parts.push_back(condition(*decl.where, as_rule, correlation));
  if (decl.while_) parts.push_back(condition(*decl.while_, as_rule, correlation));
  if (correlation >= 0) {
    plan::Cond recent;
    recent.op = plan::CondOp::CorrelatedWithin;
    recent.index = correlation;
    if (decl.after->within)
      if (const auto* lit = std::get_if<ast::IntLit>(&decl.after->within->node))
        recent.within_ns = lit->value;
    require_in_flight(recent, *decl.after->resolved, as_rule, correlation);
    parts.push_back(std::move(recent));
  }
  if (!parts.empty()) update.when = all_of(std::move(parts));
  if (decl.value) {
    update.value = expr_value(*decl.value, as_rule, -1);
    m.unit = field_unit(decl.value->type);
    if (const auto* ref = std::get_if<ast::NameRef>(&decl.value->node); ref && ref->field)
      m.unit = field_unit(ref->field->type.type);
    if (update.value.kind == plan::ValueKind::Duration) m.unit = plan::FieldUnit::Ns;
  }
  // A count with no `where`, by the calling thread's pid, tid, comm or cgroup, of a function call:
  // everything it needs is known at the call's entry, so it is counted there and the function
  // gets no return probe for it (nor an in-flight entry) unless another rule needs one.
  bool at_entry = m.kind == plan::MetricKind::Count && !decl.where && !decl.while_ && !decl.after &&
                  event->is_span && !event->begin.empty() && event->begin[0].kind == ast::ProbeKind::Call &&
                  std::all_of(decl.by.begin(), decl.by.end(), [](const ast::Ident& l) {
                    return l.name == "pid" || l.name == "tid" || l.name == "comm" || l.name == "cgroup" ||
                           plan::is_identity_label(l.name);
                  });
  uint32_t offset = 8;  // u32 other, u32 pad
  for (const ast::Ident& label : decl.by) {
    plan::MetricLabel l;
    l.name = label.name;
    l.offset = offset;
    plan::Value v;
    if (size_t dot = label.name.rfind('.'); dot != std::string::npos && decl.after && decl.after->resolved) {
      // `by usdt.request_start.id`: the field the `after` event left on this thread, served as `id`.
      const ast::FieldDecl* f = find_field(*decl.after->resolved, label.name.substr(dot + 1));
      ast::NameRef ref;
      ref.kind = ast::RefKind::OtherEvent;
      ref.event = decl.after->resolved;
      ref.field = f;
      if (f) v = name_value(ref, as_rule, correlation);
      l.name = label.name.substr(dot + 1);
      l.type = v.type;
    } else if (label.name == "comm") {
      l.type = plan::FieldType::Str;
      l.size = 16;
      v.kind = plan::ValueKind::Comm;
      if (!at_entry && event->is_span && event_sites(*event).keyed) v = begin_thread_value(*event, "comm");
    } else if (const ast::FieldDecl* f = find_field(*event, label.name)) {
      v = field_value(*event, *f, true);
      l.type = v.type;
      if (l.type == plan::FieldType::Str) l.size = 16;
      if (!f->type.type.enum_name.empty()) {  // served by name, as outputs print it
        l.enum_name = f->type.type.enum_name;
        add_enum_table(l.enum_name);
      }
    } else {
      // pid, tid, cgroup; container, container_id, pod and namespace are the cgroup id in the
      // key, which user space serves as the cgroup's identity (series of one identity summed).
      ast::NameRef ref;
      ref.kind = ast::RefKind::Builtin;
      ref.builtin = plan::is_identity_label(label.name) ? "cgroup" : label.name;
      if (at_entry) {
        v.kind = ref.builtin == "pid"   ? plan::ValueKind::Pid
                 : ref.builtin == "tid" ? plan::ValueKind::Tid
                                        : plan::ValueKind::Cgroup;
      } else {
        v = name_value(ref, as_rule, -1);
      }
    }
    offset += l.size;
    m.labels.push_back(l);
    update.labels.push_back(v);
  }
  m.key_size = offset;
  m.value_size = 16 + (m.kind == plan::MetricKind::Hist ? 8 * plan::kHistBuckets : 0);
  m.per_cpu = m.kind != plan::MetricKind::Hist;
  // `by E.key` alone, E beginning a span keyed by it: each key's series ends with its span, read
  // and deleted there, so it is one shared value (a per-CPU one cannot be read whole in the kernel).
  const ast::EventDecl* keyed_span = nullptr;
  if (decl.by.size() == 1 && decl.after && decl.after->resolved && m.kind != plan::MetricKind::Hist) {
    SpanKeyedBy keyed = span_begun_by(*decl.after->resolved);
    const std::string& label = decl.by[0].name;
    if (keyed.span && label.size() > keyed.field->name.name.size() &&
        label.compare(label.size() - keyed.field->name.name.size() - 1, std::string::npos,
                      "." + keyed.field->name.name) == 0)
      keyed_span = keyed.span;
  }
  if (keyed_span) m.per_cpu = false;
  metrics_[&decl] = update.metric;
  program.plan.metrics.push_back(std::move(m));
  int index = static_cast<int>(program.metric_updates.size());
  program.metric_updates.push_back(std::move(update));
  if (keyed_span) retire_with_span(program.plan.metrics.back(), metrics_[&decl], *keyed_span);

  if (at_entry) {
    for (int s : call_entry_sites(*event))
      program.sites[static_cast<size_t>(s)].actions.push_back(
          plan::Action(plan::ActionKind::MetricUpdate, index));
    return;
  }
  const EventSites& es = event_sites(*event);
  for (int s : es.end) {
    if (plan::Action* end = span_end_action(s, es))
      end->metrics.push_back(index);
    else
      program.sites[static_cast<size_t>(s)].actions.push_back(
          plan::Action(plan::ActionKind::MetricUpdate, index));
  }
}

void Lowerer::lower_window(const ast::RuleDecl& rule, uint32_t rule_id) {
  const auto* cmp = rule.when ? std::get_if<ast::Binary>(&rule.when->node) : nullptr;
  if (!cmp) return;
  const ast::Expr* call_side = cmp->lhs.get();
  const ast::Expr* value_side = cmp->rhs.get();
  plan::Window w;
  w.rule_id = rule_id;
  switch (cmp->op) {
    case ast::BinaryOp::Gt:
      w.compare = plan::Compare::Gt;
      break;
    case ast::BinaryOp::Ge:
      w.compare = plan::Compare::Ge;
      break;
    case ast::BinaryOp::Lt:
      w.compare = plan::Compare::Lt;
      break;
    case ast::BinaryOp::Le:
      w.compare = plan::Compare::Le;
      break;
    case ast::BinaryOp::Eq:
      w.compare = plan::Compare::Eq;
      break;
    case ast::BinaryOp::Ne:
      w.compare = plan::Compare::Ne;
      break;
    default:
      unsupported(rule.when->range, "a windowed condition must compare an aggregate with a value");
      return;
  }
  if (!std::holds_alternative<ast::Call>(call_side->node)) {
    std::swap(call_side, value_side);
    w.compare = flip(w.compare);
  }
  const auto* call = std::get_if<ast::Call>(&call_side->node);
  const auto* limit = std::get_if<ast::IntLit>(&value_side->node);
  if (!call || !limit || call->args.empty() || !call->window) {
    unsupported(rule.when->range,
                "a windowed condition must compare one aggregate over a window with a constant");
    return;
  }
  if (!window_function(call->function.name, &w.function, &w.quantile)) return;
  if (const auto* ref = std::get_if<ast::NameRef>(&call->args[0]->node)) w.metric = ref->name.str();
  if (const auto* win = std::get_if<ast::IntLit>(&call->window->node)) w.window_ns = win->value;
  w.threshold = static_cast<double>(limit->value);
  program.plan.windows.push_back(std::move(w));
}

}  // namespace seam::lower
