// Windowed rules: `when p99(sync_latency) over 1m > 50ms`. An aggregate function applied to a
// metric over a time window; its type is that of the metric's values (count and rate: a number).
#include <algorithm>

#include "compiler/check/checker.hpp"
#include "compiler/check/suggest.hpp"

namespace seam::check {

using ast::Type;
using ast::TypeKind;
using diag::Code;

namespace {

const std::vector<std::string>& aggregates() {
  static const std::vector<std::string> names = {"p50", "p90", "p95",   "p99",  "p999", "avg",
                                                 "min", "max", "count", "rate", "sum"};
  return names;
}

}  // namespace

bool Checker::resolve_call(ExprContext& ctx, ast::Expr& e, ast::Call& call) {
  const std::string& fn = call.function.name;
  if (std::find(aggregates().begin(), aggregates().end(), fn) == aggregates().end()) {
    diag::Diagnostic& d =
        diags_.error(Code::UnknownFunction, call.function.range, "unknown function '" + fn + "'");
    if (auto best = closest(fn, aggregates())) d.hints.push_back("did you mean " + *best + "?");
    d.hints.push_back("aggregates are " + join(aggregates()));
    return false;
  }
  if (call.window) {
    ast::Expr& w = *call.window;
    check_expr(ctx, w);
    const auto* lit = std::get_if<ast::IntLit>(&w.node);
    if (w.type.kind == TypeKind::Int && w.type.unit == ast::Unit::None && lit) {
      diags_.error(Code::BadWindow, w.range, "the window needs a time unit")
          .hints.push_back("write " + std::string(w.range.text()) + "m");
    } else if (w.type.kind != TypeKind::Unknown &&
               (w.type.kind != TypeKind::Int || w.type.unit != ast::Unit::Duration)) {
      diags_.error(Code::BadWindow, w.range, "the window must be a duration, not " + describe(w.type))
          .hints.push_back("e.g. `over 1m`");
    } else if (lit && lit->value <= 0) {
      diags_.error(Code::BadWindow, w.range, "the window must be longer than 0")
          .hints.push_back("e.g. `over 1m`");
    }
  } else {
    diags_.error(Code::BadWindow, e.range, "'" + std::string(e.range.text()) + "' needs a window")
        .hints.push_back("add `over 1m` after it");
  }
  const ast::NameRef* arg =
      call.args.size() == 1 && call.args[0] ? std::get_if<ast::NameRef>(&call.args[0]->node) : nullptr;
  if (!arg || arg->name.parts.size() != 1) {
    diags_.error(Code::UnknownMetric, e.range, "'" + fn + "' takes one metric")
        .hints.push_back("e.g. `" + fn + "(sync_latency) over 1m`");
    return false;
  }
  ast::Expr& arg_expr = *call.args[0];
  auto& ref = std::get<ast::NameRef>(arg_expr.node);
  const ast::MetricDecl* metric = resolve_metric(*ctx.table, ref.name.parts[0]);
  if (!metric) return false;
  ref.kind = ast::RefKind::Metric;
  ref.metric = metric;
  arg_expr.type = Type::of(TypeKind::Metric);
  if (fn == "count" || fn == "rate") {
    e.type = Type::integer(64, false);
    return true;
  }
  if (metric->kind == ast::MetricKind::Count) {
    if (fn == "sum") {
      e.type = Type::integer(64, false);
      return true;
    }
    diags_
        .error(Code::TypeMismatch, e.range,
               "'" + fn + "' needs a `sum` or `hist` metric, but '" + metric->name.name + "' counts events")
        .hints.push_back("use count(" + metric->name.name + ") or rate(" + metric->name.name + ")");
    return false;
  }
  if (metric->value && metric->value->type.kind == TypeKind::Int) {
    e.type = metric->value->type;
    e.type.bits = 64;
  }
  return true;
}

}  // namespace seam::check
