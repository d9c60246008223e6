#pragma once
// `limit N per D per process`: whether a rule's count can be kept per process. Event rules: always
// (every alert carries its pid). Windowed rules: only when the metric they aggregate is `by pid`,
// since a series then belongs to one process; otherwise the limit stays rule-wide.
#include "compiler/ast/ast.hpp"

namespace seam::ast {

inline constexpr const char* kLimitScopeProcess = "process";

// The metric a windowed rule's `when` aggregates (after the checker resolved it), or null.
inline const MetricDecl* windowed_metric(const Expr& e) {
  if (const auto* call = std::get_if<Call>(&e.node)) {
    for (const ExprPtr& a : call->args)
      if (const auto* ref = a ? std::get_if<NameRef>(&a->node) : nullptr; ref && ref->metric)
        return ref->metric;
    return nullptr;
  }
  if (const auto* b = std::get_if<Binary>(&e.node)) {
    const MetricDecl* m = b->lhs ? windowed_metric(*b->lhs) : nullptr;
    return m ? m : (b->rhs ? windowed_metric(*b->rhs) : nullptr);
  }
  return nullptr;
}

inline bool metric_by_pid(const MetricDecl& m) {
  for (const Ident& label : m.by)
    if (label.name == "pid") return true;
  return false;
}

// True when the rule has `per process` and its alerts can be told apart by process.
inline bool limit_per_process(const RuleDecl& r) {
  if (!r.limit || !r.limit->scope || r.limit->scope->name != kLimitScopeProcess) return false;
  if (!r.when) return true;
  const MetricDecl* m = windowed_metric(*r.when);
  return m && metric_by_pid(*m);
}

}  // namespace seam::ast
