#include "compiler/lower/lower_outputs.hpp"

#include <utility>

#include "compiler/lower/lower.hpp"
#include "compiler/lower/lowerer.hpp"

namespace seam::lower {

namespace {

std::optional<plan::Compare> compare_of(ast::BinaryOp op) {
  switch (op) {
    case ast::BinaryOp::Eq:
      return plan::Compare::Eq;
    case ast::BinaryOp::Ne:
      return plan::Compare::Ne;
    case ast::BinaryOp::Lt:
      return plan::Compare::Lt;
    case ast::BinaryOp::Le:
      return plan::Compare::Le;
    case ast::BinaryOp::Gt:
      return plan::Compare::Gt;
    case ast::BinaryOp::Ge:
      return plan::Compare::Ge;
    default:
      return std::nullopt;
  }
}

// `warning < severity` is `severity > warning`.
plan::Compare mirrored(plan::Compare c) {
  switch (c) {
    case plan::Compare::Lt:
      return plan::Compare::Gt;
    case plan::Compare::Le:
      return plan::Compare::Ge;
    case plan::Compare::Gt:
      return plan::Compare::Lt;
    case plan::Compare::Ge:
      return plan::Compare::Le;
    default:
      return c;
  }
}

const ast::NameRef* severity_variable(const ast::Expr& e) {
  const auto* r = std::get_if<ast::NameRef>(&e.node);
  return r && r->kind == ast::RefKind::Severity && r->builtin.empty() ? r : nullptr;
}

// The severity a word names (`warning`), as the checker resolved it.
std::optional<plan::Severity> severity_word(const ast::Expr& e) {
  const auto* r = std::get_if<ast::NameRef>(&e.node);
  if (!r) return std::nullopt;
  return plan::severity_named(r->builtin.empty() ? r->name.str() : r->builtin);
}

[[noreturn]] void unhandled(const ast::Expr& e) {
  throw LowerError("route condition at " + origin_of(e.range) + ": no plan form for this test");
}

plan::RouteCondition condition(const ast::Expr& e) {
  plan::RouteCondition c;
  if (const auto* b = std::get_if<ast::BoolLit>(&e.node)) {
    c.value = b->value;
    return c;
  }
  if (const auto* u = std::get_if<ast::Unary>(&e.node)) {
    c.kind = plan::RouteCondition::Kind::Not;
    c.operands.push_back(condition(*u->operand));
    return c;
  }
  const auto* bin = std::get_if<ast::Binary>(&e.node);
  if (!bin) unhandled(e);
  if (bin->op == ast::BinaryOp::And || bin->op == ast::BinaryOp::Or) {
    c.kind = bin->op == ast::BinaryOp::And ? plan::RouteCondition::Kind::And : plan::RouteCondition::Kind::Or;
    c.operands.push_back(condition(*bin->lhs));
    c.operands.push_back(condition(*bin->rhs));
    return c;
  }
  std::optional<plan::Compare> compare = compare_of(bin->op);
  bool lhs_severity = std::holds_alternative<ast::NameRef>(bin->lhs->node) &&
                      std::get<ast::NameRef>(bin->lhs->node).kind == ast::RefKind::Severity;
  bool rhs_severity = std::holds_alternative<ast::NameRef>(bin->rhs->node) &&
                      std::get<ast::NameRef>(bin->rhs->node).kind == ast::RefKind::Severity;
  bool one_variable = (severity_variable(*bin->lhs) != nullptr) != (severity_variable(*bin->rhs) != nullptr);
  if (lhs_severity && rhs_severity && !one_variable) {
    c.value = false;  // two words, or the variable against itself: never a route (as before the plan)
    return c;
  }
  if (compare && severity_variable(*bin->lhs) && !severity_variable(*bin->rhs)) {
    if (auto word = severity_word(*bin->rhs)) {
      c.kind = plan::RouteCondition::Kind::Severity;
      c.compare = *compare;
      c.severity = *word;
      return c;
    }
  }
  if (compare && severity_variable(*bin->rhs) && !severity_variable(*bin->lhs)) {
    if (auto word = severity_word(*bin->lhs)) {
      c.kind = plan::RouteCondition::Kind::Severity;
      c.compare = mirrored(*compare);
      c.severity = *word;
      return c;
    }
  }
  const auto* text = std::get_if<ast::StrLit>(&bin->rhs->node);
  if (!text) text = std::get_if<ast::StrLit>(&bin->lhs->node);
  if (text && (bin->op == ast::BinaryOp::StartsWith || bin->op == ast::BinaryOp::Eq ||
               bin->op == ast::BinaryOp::Ne)) {
    c.kind = plan::RouteCondition::Kind::Rule;
    c.prefix = bin->op == ast::BinaryOp::StartsWith;
    c.compare = bin->op == ast::BinaryOp::Ne ? plan::Compare::Ne : plan::Compare::Eq;
    c.text = text->value;
    return c;
  }
  unhandled(e);
}

plan::Output output(const ast::OutputDecl& o) {
  plan::Output out;
  out.name = o.name.name;
  out.target = o.target;
  out.origin = origin_of(o.range);
  switch (o.kind) {
    case ast::OutputKind::Stdout:
      out.kind = plan::OutputKind::Stdout;
      break;
    case ast::OutputKind::Json:
      out.kind = plan::OutputKind::Json;
      break;
    case ast::OutputKind::Webhook:
      out.kind = plan::OutputKind::Webhook;
      if (o.format)
        out.format =
            o.format->name == "alertmanager" ? plan::WebhookFormat::Alertmanager : plan::WebhookFormat::Json;
      break;
  }
  return out;
}

}  // namespace

void lower_outputs(const std::vector<const ast::File*>& files, plan::Plan& plan) {
  for (const ast::File* f : files)
    for (const ast::Decl& d : f->decls) {
      if (const auto* o = std::get_if<ast::OutputDecl>(&d)) plan.outputs.push_back(output(*o));
      const auto* r = std::get_if<ast::RouteDecl>(&d);
      if (!r || !r->condition) continue;
      plan::Route route;
      route.condition = condition(*r->condition);
      for (const ast::Ident& out : r->outputs) route.outputs.push_back(out.name);
      route.origin = origin_of(r->range);
      plan.routes.push_back(std::move(route));
    }
}

}  // namespace seam::lower
