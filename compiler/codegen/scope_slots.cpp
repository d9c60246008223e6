#include "compiler/codegen/scope_slots.hpp"

namespace seam::codegen {

namespace {

void add_span_end(const plan::Program& p, const plan::Action& a, std::set<int>& slots, bool& unknown) {
  for (const plan::RuleCheck& r : a.rules) slots.insert(rule_slot(p, r.rule_id));
  for (int m : a.metrics) slots.insert(metric_slot(p, m));
  unknown = unknown || !a.marks.empty();  // a correlation's later rule may be of any slot
}

// Every slot the program's rules and metrics use: what an action that serves no rule of its
// own (a state, a correlation) must run for.
std::set<int> all_slots(const plan::Program& p) {
  std::set<int> slots;
  for (const plan::Rule& r : p.plan.rules) slots.insert(r.scope < 0 ? scope_slot_count(p) - 1 : r.scope);
  for (size_t m = 0; m < p.metric_updates.size(); ++m) slots.insert(metric_slot(p, static_cast<int>(m)));
  return slots;
}

}  // namespace

int scope_slot_count(const plan::Program& p) {
  return static_cast<int>(p.plan.scopes.size()) + 1;
}

int rule_slot(const plan::Program& p, uint32_t rule_id) {
  for (const plan::Rule& r : p.plan.rules)
    if (r.id == rule_id && r.scope >= 0) return r.scope;
  return scope_slot_count(p) - 1;
}

int metric_slot(const plan::Program& p, int metric_update) {
  const plan::MetricUpdate& u = p.metric_updates.at(static_cast<size_t>(metric_update));
  int scope = p.plan.metrics.at(static_cast<size_t>(u.metric)).scope;
  return scope >= 0 ? scope : scope_slot_count(p) - 1;
}

bool slot_tests(const plan::Program& p, const Options& options, int slot) {
  return options.operator_scope || slot < scope_slot_count(p) - 1;
}

bool scoped(const plan::Program& p, const Options& options) {
  return options.operator_scope || !p.plan.scopes.empty();
}

std::set<int> site_slots(const plan::Program& p, const plan::Site& site) {
  std::set<int> slots;
  bool unknown = false;
  for (const plan::Action& a : site.actions) switch (a.kind) {
      case plan::ActionKind::Rules:
        for (const plan::RuleCheck& r : a.rules) slots.insert(rule_slot(p, r.rule_id));
        break;
      case plan::ActionKind::SpanEnd:
        add_span_end(p, a, slots, unknown);
        break;
      case plan::ActionKind::MetricUpdate:
        slots.insert(metric_slot(p, a.index));
        break;
      case plan::ActionKind::SpanBegin: {  // what the span's ends serve, wherever they are
        bool ended = false;
        for (const plan::Site& other : p.sites)
          for (const plan::Action& e : other.actions)
            if (e.kind == plan::ActionKind::SpanEnd && e.index == a.index) {
              ended = true;
              add_span_end(p, e, slots, unknown);
            }
        unknown = unknown || !ended;
        break;
      }
      case plan::ActionKind::StateSet:
      case plan::ActionKind::StateClear:
      case plan::ActionKind::CorrelationMark:
        unknown = true;
        break;
    }
  if (unknown) slots.merge(all_slots(p));
  return slots;
}

}  // namespace seam::codegen
