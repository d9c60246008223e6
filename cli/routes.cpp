#include "cli/routes.hpp"

#include <map>

#include "runtime/output/routed_sink.hpp"

namespace seam::cli {

namespace {

int rank(plan::Severity s) { return static_cast<int>(s); }

bool severity_word(const std::string& word, plan::Severity* out) {
  static const std::pair<const char*, plan::Severity> kWords[] = {{"info", plan::Severity::Info},
                                                                  {"warning", plan::Severity::Warning},
                                                                  {"error", plan::Severity::Error},
                                                                  {"critical", plan::Severity::Critical}};
  for (const auto& [w, s] : kWords)
    if (word == w) {
      *out = s;
      return true;
    }
  return false;
}

bool compare(int a, ast::BinaryOp op, int b) {
  switch (op) {
    case ast::BinaryOp::Eq: return a == b;
    case ast::BinaryOp::Ne: return a != b;
    case ast::BinaryOp::Lt: return a < b;
    case ast::BinaryOp::Le: return a <= b;
    case ast::BinaryOp::Gt: return a > b;
    case ast::BinaryOp::Ge: return a >= b;
    default: return false;
  }
}

// A route condition over `severity` and `rule` (the checker has resolved and typed it).
runtime::AlertPredicate predicate(const ast::Expr& e) {
  if (const auto* b = std::get_if<ast::BoolLit>(&e.node)) {
    bool v = b->value;
    return [v](const runtime::Alert&) { return v; };
  }
  if (const auto* u = std::get_if<ast::Unary>(&e.node)) {
    runtime::AlertPredicate inner = predicate(*u->operand);
    return [inner](const runtime::Alert& a) { return !inner(a); };
  }
  const auto* bin = std::get_if<ast::Binary>(&e.node);
  if (!bin) return [](const runtime::Alert&) { return false; };
  if (bin->op == ast::BinaryOp::And || bin->op == ast::BinaryOp::Or) {
    runtime::AlertPredicate l = predicate(*bin->lhs), r = predicate(*bin->rhs);
    if (bin->op == ast::BinaryOp::And) return [l, r](const runtime::Alert& a) { return l(a) && r(a); };
    return [l, r](const runtime::Alert& a) { return l(a) || r(a); };
  }
  const ast::Expr* lhs = bin->lhs.get();
  const ast::Expr* rhs = bin->rhs.get();
  ast::BinaryOp op = bin->op;
  const auto* lref = std::get_if<ast::NameRef>(&lhs->node);
  const auto* rref = std::get_if<ast::NameRef>(&rhs->node);
  // severity OP word (either side)
  auto is_severity_var = [](const ast::NameRef* r) { return r && r->kind == ast::RefKind::Severity && r->builtin.empty(); };
  if (is_severity_var(rref) && !is_severity_var(lref)) {
    std::swap(lhs, rhs);
    std::swap(lref, rref);
    switch (op) {
      case ast::BinaryOp::Lt: op = ast::BinaryOp::Gt; break;
      case ast::BinaryOp::Le: op = ast::BinaryOp::Ge; break;
      case ast::BinaryOp::Gt: op = ast::BinaryOp::Lt; break;
      case ast::BinaryOp::Ge: op = ast::BinaryOp::Le; break;
      default: break;
    }
  }
  plan::Severity word{};
  if (is_severity_var(lref) && rref && severity_word(rref->builtin.empty() ? rref->name.str() : rref->builtin, &word))
    return [op, word](const runtime::Alert& a) { return compare(rank(a.severity), op, rank(word)); };
  // rule == "name" / rule startswith "prefix"
  const ast::StrLit* text = std::get_if<ast::StrLit>(&rhs->node);
  if (!text) text = std::get_if<ast::StrLit>(&lhs->node);
  if (text) {
    std::string want = text->value;
    if (op == ast::BinaryOp::StartsWith) return [want](const runtime::Alert& a) { return a.rule.rfind(want, 0) == 0; };
    if (op == ast::BinaryOp::Ne) return [want](const runtime::Alert& a) { return a.rule != want; };
    return [want](const runtime::Alert& a) { return a.rule == want; };
  }
  return [](const runtime::Alert&) { return false; };
}

std::string where(const SourceRange& r) {
  return r.valid() ? r.file->path() + ":" + std::to_string(r.file->line_col(r.begin).line) : "";
}

}  // namespace

bool declared_sinks(const check::Program& program, std::vector<std::unique_ptr<runtime::Sink>>& sinks,
                    std::ostream& err) {
  std::map<std::string, std::vector<runtime::AlertPredicate>> routes;
  for (const ast::File& f : program.rule_files)
    for (const ast::Decl& d : f.decls)
      if (const auto* r = std::get_if<ast::RouteDecl>(&d); r && r->condition)
        for (const ast::Ident& out : r->outputs) routes[out.name].push_back(predicate(*r->condition));
  for (const ast::File& f : program.rule_files)
    for (const ast::Decl& d : f.decls) {
      const auto* o = std::get_if<ast::OutputDecl>(&d);
      if (!o) continue;
      std::string spec;
      switch (o->kind) {
        case ast::OutputKind::Stdout: spec = "stdout"; break;
        case ast::OutputKind::Json: spec = "json:" + o->target; break;
        case ast::OutputKind::Webhook:
          spec = "webhook:" + o->target + (o->format ? ",format=" + o->format->name : "") + ",name=" + o->name.name;
          break;
      }
      auto sink = runtime::make_sink(spec);
      if (!sink) {
        err << where(o->range) << ": output " << o->name.name << ": " << sink.error() << "\n";
        return false;
      }
      auto it = routes.find(o->name.name);
      if (it == routes.end())
        sinks.push_back(std::move(*sink));
      else
        sinks.push_back(std::make_unique<runtime::RoutedSink>(std::move(*sink), it->second));
    }
  return true;
}

}  // namespace seam::cli
