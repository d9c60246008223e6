#include "cli/routes.hpp"

#include <map>

#include <nlohmann/json.hpp>

#include "runtime/output/routed_sink.hpp"

namespace seam::cli {

namespace {

int rank(plan::Severity s) {
  return static_cast<int>(s);
}

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
    case ast::BinaryOp::Eq:
      return a == b;
    case ast::BinaryOp::Ne:
      return a != b;
    case ast::BinaryOp::Lt:
      return a < b;
    case ast::BinaryOp::Le:
      return a <= b;
    case ast::BinaryOp::Gt:
      return a > b;
    case ast::BinaryOp::Ge:
      return a >= b;
    default:
      return false;
  }
}

const std::pair<const char*, ast::BinaryOp> kOps[] = {{"==", ast::BinaryOp::Eq}, {"!=", ast::BinaryOp::Ne},
                                                      {"<", ast::BinaryOp::Lt},  {"<=", ast::BinaryOp::Le},
                                                      {">", ast::BinaryOp::Gt},  {">=", ast::BinaryOp::Ge}};

const char* op_name(ast::BinaryOp op) {
  for (const auto& [name, o] : kOps)
    if (o == op) return name;
  return "?";
}

ast::BinaryOp op_of(const std::string& name) {
  for (const auto& [n, o] : kOps)
    if (name == n) return o;
  return ast::BinaryOp::And;  // compares false
}

// A route condition over `severity` and `rule` (the checker has resolved and typed it), as JSON
// so that a bundle carries it: {"const": b}, {"not": c}, {"and"|"or": [l, r]},
// {"severity": OP, "word": W} (the alert's severity OP W), {"rule": OP, "text": T}.
nlohmann::json condition(const ast::Expr& e) {
  if (const auto* b = std::get_if<ast::BoolLit>(&e.node)) return {{"const", b->value}};
  if (const auto* u = std::get_if<ast::Unary>(&e.node)) return {{"not", condition(*u->operand)}};
  const auto* bin = std::get_if<ast::Binary>(&e.node);
  if (!bin) return {{"const", false}};
  if (bin->op == ast::BinaryOp::And || bin->op == ast::BinaryOp::Or)
    return {{bin->op == ast::BinaryOp::And ? "and" : "or", {condition(*bin->lhs), condition(*bin->rhs)}}};
  const ast::Expr* lhs = bin->lhs.get();
  const ast::Expr* rhs = bin->rhs.get();
  ast::BinaryOp op = bin->op;
  const auto* lref = std::get_if<ast::NameRef>(&lhs->node);
  const auto* rref = std::get_if<ast::NameRef>(&rhs->node);
  // severity OP word (either side)
  auto is_severity_var = [](const ast::NameRef* r) {
    return r && r->kind == ast::RefKind::Severity && r->builtin.empty();
  };
  if (is_severity_var(rref) && !is_severity_var(lref)) {
    std::swap(lhs, rhs);
    std::swap(lref, rref);
    switch (op) {
      case ast::BinaryOp::Lt:
        op = ast::BinaryOp::Gt;
        break;
      case ast::BinaryOp::Le:
        op = ast::BinaryOp::Ge;
        break;
      case ast::BinaryOp::Gt:
        op = ast::BinaryOp::Lt;
        break;
      case ast::BinaryOp::Ge:
        op = ast::BinaryOp::Le;
        break;
      default:
        break;
    }
  }
  plan::Severity word{};
  if (is_severity_var(lref) && rref &&
      severity_word(rref->builtin.empty() ? rref->name.str() : rref->builtin, &word))
    return {{"severity", op_name(op)}, {"word", plan::to_string(word)}};
  // rule == "name" / rule startswith "prefix"
  const ast::StrLit* text = std::get_if<ast::StrLit>(&rhs->node);
  if (!text) text = std::get_if<ast::StrLit>(&lhs->node);
  if (text) {
    const char* rule_op = op == ast::BinaryOp::StartsWith ? "startswith"
                          : op == ast::BinaryOp::Ne       ? "!="
                                                          : "==";
    return {{"rule", rule_op}, {"text", text->value}};
  }
  return {{"const", false}};
}

runtime::AlertPredicate predicate(const nlohmann::json& c) {
  if (c.contains("const")) {
    bool v = c["const"].get<bool>();
    return [v](const runtime::Alert&) { return v; };
  }
  if (c.contains("not")) {
    runtime::AlertPredicate inner = predicate(c["not"]);
    return [inner](const runtime::Alert& a) { return !inner(a); };
  }
  if (c.contains("and") || c.contains("or")) {
    bool is_and = c.contains("and");
    const nlohmann::json& kids = is_and ? c["and"] : c["or"];
    runtime::AlertPredicate l = predicate(kids.at(0)), r = predicate(kids.at(1));
    if (is_and) return [l, r](const runtime::Alert& a) { return l(a) && r(a); };
    return [l, r](const runtime::Alert& a) { return l(a) || r(a); };
  }
  if (c.contains("severity")) {
    plan::Severity word{};
    ast::BinaryOp op = op_of(c["severity"].get<std::string>());
    if (!severity_word(c.at("word").get<std::string>(), &word))
      return [](const runtime::Alert&) { return false; };
    return [op, word](const runtime::Alert& a) { return compare(rank(a.severity), op, rank(word)); };
  }
  if (c.contains("rule")) {
    std::string op = c["rule"].get<std::string>(), want = c.at("text").get<std::string>();
    if (op == "startswith") return [want](const runtime::Alert& a) { return a.rule.rfind(want, 0) == 0; };
    if (op == "!=") return [want](const runtime::Alert& a) { return a.rule != want; };
    return [want](const runtime::Alert& a) { return a.rule == want; };
  }
  return [](const runtime::Alert&) { return false; };
}

std::string where(const SourceRange& r) {
  return r.valid() ? r.file->path() + ":" + std::to_string(r.file->line_col(r.begin).line) : "";
}

}  // namespace

nlohmann::json declared_outputs(const check::Program& program) {
  std::map<std::string, nlohmann::json> routes;
  for (const ast::File& f : program.rule_files)
    for (const ast::Decl& d : f.decls)
      if (const auto* r = std::get_if<ast::RouteDecl>(&d); r && r->condition)
        for (const ast::Ident& out : r->outputs) routes[out.name].push_back(condition(*r->condition));
  nlohmann::json outputs = nlohmann::json::array();
  for (const ast::File& f : program.rule_files)
    for (const ast::Decl& d : f.decls) {
      const auto* o = std::get_if<ast::OutputDecl>(&d);
      if (!o) continue;
      std::string spec;
      switch (o->kind) {
        case ast::OutputKind::Stdout:
          spec = "stdout";
          break;
        case ast::OutputKind::Json:
          spec = "json:" + o->target;
          break;
        case ast::OutputKind::Webhook:
          spec = "webhook:" + o->target + (o->format ? ",format=" + o->format->name : "") +
                 ",name=" + o->name.name;
          break;
      }
      nlohmann::json out = {{"name", o->name.name}, {"spec", spec}, {"origin", where(o->range)}};
      if (auto it = routes.find(o->name.name); it != routes.end()) out["routes"] = it->second;
      outputs.push_back(std::move(out));
    }
  return outputs;
}

bool open_outputs(const nlohmann::json& outputs, std::vector<std::unique_ptr<runtime::Sink>>& sinks,
                  std::ostream& err) {
  for (const nlohmann::json& o : outputs) {
    auto sink = runtime::make_sink(o.at("spec").get<std::string>());
    if (!sink) {
      err << o.value("origin", std::string()) << ": output " << o.value("name", std::string()) << ": "
          << sink.error() << "\n";
      return false;
    }
    if (!o.contains("routes")) {
      sinks.push_back(std::move(*sink));
      continue;
    }
    std::vector<runtime::AlertPredicate> predicates;
    for (const nlohmann::json& c : o["routes"]) predicates.push_back(predicate(c));
    sinks.push_back(std::make_unique<runtime::RoutedSink>(std::move(*sink), std::move(predicates)));
  }
  return true;
}

bool declared_sinks(const check::Program& program, std::vector<std::unique_ptr<runtime::Sink>>& sinks,
                    std::ostream& err) {
  return open_outputs(declared_outputs(program), sinks, err);
}

}  // namespace seam::cli
