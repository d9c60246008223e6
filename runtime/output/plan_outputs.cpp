#include "runtime/output/plan_outputs.hpp"

#include <cstdlib>

#include "runtime/output/json_sink.hpp"
#include "runtime/output/routed_sink.hpp"
#include "runtime/output/stdout_sink.hpp"
#include "runtime/output/webhook_options.hpp"

namespace seam::runtime {

namespace {

bool compare(plan::Compare op, int a, int b) {
  switch (op) {
    case plan::Compare::Eq:
      return a == b;
    case plan::Compare::Ne:
      return a != b;
    case plan::Compare::Lt:
      return a < b;
    case plan::Compare::Le:
      return a <= b;
    case plan::Compare::Gt:
      return a > b;
    case plan::Compare::Ge:
      return a >= b;
  }
  return false;
}

bool rule_selected(const plan::RouteCondition& c, const std::string& rule) {
  bool match = c.prefix ? rule.rfind(c.text, 0) == 0 : rule == c.text;
  return c.compare == plan::Compare::Ne ? !match : match;
}

}  // namespace

bool route_selects(const plan::RouteCondition& c, const Alert& alert) {
  using Kind = plan::RouteCondition::Kind;
  switch (c.kind) {
    case Kind::Const:
      return c.value;
    case Kind::Not:
      return !c.operands.empty() && !route_selects(c.operands[0], alert);
    case Kind::And:
      return c.operands.size() == 2 && route_selects(c.operands[0], alert) &&
             route_selects(c.operands[1], alert);
    case Kind::Or:
      return c.operands.size() == 2 &&
             (route_selects(c.operands[0], alert) || route_selects(c.operands[1], alert));
    case Kind::Severity:
      return compare(c.compare, static_cast<int>(alert.severity), static_cast<int>(c.severity));
    case Kind::Rule:
      return rule_selected(c, alert.rule);
  }
  return false;
}

Result<std::unique_ptr<Sink>> make_sink(const plan::Output& output) {
  switch (output.kind) {
    case plan::OutputKind::Stdout:
      return std::unique_ptr<Sink>(new StdoutSink(STDOUT_FILENO, StdoutSink::kNoNotices));
    case plan::OutputKind::Json:
      if (output.target.empty()) return Error{"a json output needs a file path"};
      return JsonSink::open_file(output.target);
    case plan::OutputKind::Webhook:
      break;
  }
  // The URL may carry --output's options (",header=...,spool=DIR"); the declaration's name and
  // format come from the plan, over any the URL names.
  auto options = parse_webhook_spec(output.target, [](const char* n) { return std::getenv(n); });
  if (!options) return Error{options.error()};
  if (output.format == plan::WebhookFormat::Json) options->format = WebhookFormat::Json;
  if (output.format == plan::WebhookFormat::Alertmanager) options->format = WebhookFormat::Alertmanager;
  options->name = output.name;
  return make_webhook_sink(std::move(*options));
}

Result<std::vector<std::unique_ptr<Sink>>> open_outputs(const plan::Plan& plan) {
  std::vector<std::unique_ptr<Sink>> sinks;
  for (const plan::Output& output : plan.outputs) {
    auto sink = make_sink(output);
    if (!sink) return Error{output.origin + ": output " + output.name + ": " + sink.error()};
    std::vector<AlertPredicate> routes;
    for (const plan::Route& route : plan.routes)
      for (const std::string& name : route.outputs)
        if (name == output.name)
          routes.push_back(
              [condition = route.condition](const Alert& a) { return route_selects(condition, a); });
    if (routes.empty())
      sinks.push_back(std::move(*sink));
    else
      sinks.push_back(std::make_unique<RoutedSink>(std::move(*sink), std::move(routes)));
  }
  return sinks;
}

}  // namespace seam::runtime
