// Tuning declarations (`override rule`, `disable`/`enable`, `list`), rule tags and exceptions, and
// the set tests `x in (a, b)` / `x in NAME`, which are expanded here into `x == a or x == b`.
#include "compiler/parse/builder.hpp"
#include "compiler/parse/grammar.hpp"

namespace seam::parse {

namespace g = grammar;

namespace {

// A list item is a constant or a plain name (an enum value): copyable without the parse tree.
ast::ExprPtr copy_item(const ast::Expr& item) {
  auto e = std::make_unique<ast::Expr>();
  e->range = item.range;
  if (const auto* i = std::get_if<ast::IntLit>(&item.node)) e->node = *i;
  if (const auto* s = std::get_if<ast::StrLit>(&item.node)) e->node = *s;
  if (const auto* r = std::get_if<ast::NameRef>(&item.node)) {
    ast::NameRef ref;
    ref.name = r->name;
    e->node = std::move(ref);
  }
  return e;
}

}  // namespace

std::vector<ast::ExprPtr> Builder::set_items(const Node& set_literal) {
  std::vector<ast::ExprPtr> items;
  for (const auto& c : set_literal.children) items.push_back(expr(*c));
  return items;
}

// `lhs in (a, b, c)`: `lhs == a or lhs == b or lhs == c`, each test rebuilt from the parse tree of
// `lhs`; `not in` wraps it in `not`. An unknown list name is E0113 (the test is then `true`).
ast::ExprPtr Builder::membership(const Node& compare) {
  const Node& lhs_node = *compare.children[0];
  const Node& m = *compare.children[1];
  bool negated = m.children[0]->is_type<g::not_in_op>();
  const Node& body = *m.children[1];
  SourceRange whole = range(compare);
  std::vector<ast::ExprPtr> items;
  if (body.is_type<g::set_literal>()) {
    items = set_items(body);
  } else {
    auto found = lists_.find(body.string());
    if (found == lists_.end()) {
      diag::Diagnostic& d =
          diags_.error(diag::Code::UnknownList, range(body), "unknown list '" + body.string() + "'");
      d.hints.push_back("declare it before its use in this file: list " + body.string() + " = (...)");
    } else {
      for (const ast::ExprPtr& item : found->second) items.push_back(copy_item(*item));
    }
  }
  ast::ExprPtr any;
  for (ast::ExprPtr& item : items) {
    auto eq = std::make_unique<ast::Expr>();
    eq->range = whole;
    eq->node = ast::Binary{ast::BinaryOp::Eq, expr(lhs_node), std::move(item)};
    if (!any) {
      any = std::move(eq);
      continue;
    }
    auto either = std::make_unique<ast::Expr>();
    either->range = whole;
    either->node = ast::Binary{ast::BinaryOp::Or, std::move(any), std::move(eq)};
    any = std::move(either);
  }
  if (!any) {
    any = std::make_unique<ast::Expr>();
    any->range = whole;
    any->node = ast::BoolLit{true};  // an unknown list (E0113 said so): no second finding about it
  }
  if (!negated) return any;
  auto e = std::make_unique<ast::Expr>();
  e->range = whole;
  e->node = ast::Unary{ast::UnaryOp::Not, std::move(any)};
  return e;
}

ast::ListDecl Builder::list(const Node& n) {
  ast::ListDecl l;
  l.name = ident(*n.children[0]);
  l.range = range(n);
  l.doc = doc(n);
  l.items = set_items(*n.children[1]);
  std::vector<ast::ExprPtr>& kept = lists_[l.name.name];
  kept.clear();
  for (const ast::ExprPtr& item : l.items) kept.push_back(copy_item(*item));
  return l;
}

ast::ToggleDecl Builder::toggle(const Node& n) {
  ast::ToggleDecl t;
  t.enable = n.children[0]->is_type<g::kw_enable>();
  t.range = range(n);
  const Node& target = *n.children[1];
  t.by_tag = target.is_type<g::toggle_by_tag>();
  for (const auto& c : target.children) t.names.push_back(ident(*c));
  return t;
}

ast::OverrideDecl Builder::override_rule(const Node& n) {
  ast::OverrideDecl o;
  o.rule = ident(*n.children[0]);
  o.range = range(n);
  for (size_t i = 1; i < n.children.size(); ++i) {
    const Node& c = *n.children[i];
    bool duplicate = false;
    if (c.is_type<g::threshold_clause>()) {
      duplicate = o.threshold != nullptr;
      o.threshold = number(*c.children[0]);
    } else if (c.is_type<g::where_clause>()) {
      duplicate = o.where != nullptr;
      o.where = expr(*c.children[0]);
    } else if (c.is_type<g::except_clause>()) {
      o.excepts.push_back(expr(*c.children[0]));
    } else if (c.is_type<g::alert_clause>()) {
      duplicate = o.alert.has_value();
      o.alert = alert(c);
    } else if (c.is_type<g::limit_clause>()) {
      duplicate = o.limit.has_value();
      o.limit = limit(c);
    } else if (c.is_type<g::tags_clause>()) {
      for (const auto& t : c.children) o.tags.push_back(ident(*t));
    } else if (c.is_type<g::override_toggle>()) {
      duplicate = o.enabled.has_value();
      o.enabled = c.children[0]->is_type<g::kw_enable>();
      o.enabled_range = range(c);
    }
    if (duplicate)
      diags_.error(diag::Code::DuplicateClause, range(c),
                   "duplicate clause in 'override rule " + o.rule.name + "'; each may appear once");
  }
  return o;
}

}  // namespace seam::parse
