// Rules, written out (`rule name` and clauses in any order) or as a one-line shorthand.
#include "compiler/parse/builder.hpp"
#include "compiler/parse/grammar.hpp"
#include "compiler/parse/literals.hpp"

namespace seam::parse {

namespace g = grammar;

ast::RuleDecl Builder::rule(const Node& n) {
  ast::RuleDecl r;
  where_from_comparison_ = false;
  r.name = ident(*n.children[0]);
  r.range = range(n);
  r.doc = doc(n);
  for (size_t i = 1; i < n.children.size(); ++i) rule_clause(*n.children[i], r);
  return r;
}

// `cudaStreamSynchronize > 10ms while gil_held -> alert with ustack`
ast::RuleDecl Builder::shorthand(const Node& n) {
  ast::RuleDecl r;
  where_from_comparison_ = false;
  r.shorthand = true;
  r.range = range(n);
  r.doc = doc(n);
  r.event = qualname(*n.children[0]);
  uint32_t line = source_.line_col(r.range.begin).line;
  r.name = ast::Ident{r.event->parts.back().name + "_L" + std::to_string(line), r.event->range};
  for (size_t i = 1; i < n.children.size(); ++i) {
    const Node& c = *n.children[i];
    if (!c.is_type<g::lead_compare>()) {
      rule_clause(c, r);
      continue;
    }
    // The leading comparison tests the span's duration: `> 10ms` is `where duration > 10ms`,
    // with `duration` placed on the operator so that messages can point at it.
    const Node& op = *c.children[0];
    auto lhs = std::make_unique<ast::Expr>();
    lhs->range = range(op);
    ast::NameRef duration;
    duration.name = ast::QualName{{ast::Ident{"duration", range(op)}}, range(op)};
    lhs->node = std::move(duration);
    ast::ExprPtr rhs = expr(*c.children[1]);
    auto cmp = std::make_unique<ast::Expr>();
    cmp->range = SourceRange::join(lhs->range, rhs->range);
    ast::BinaryOp bop = ast::BinaryOp::StartsWith;
    std::string_view o = op.string_view();
    if (o == "==") bop = ast::BinaryOp::Eq;
    if (o == "!=") bop = ast::BinaryOp::Ne;
    if (o == "<=") bop = ast::BinaryOp::Le;
    if (o == ">=") bop = ast::BinaryOp::Ge;
    if (o == "<") bop = ast::BinaryOp::Lt;
    if (o == ">") bop = ast::BinaryOp::Gt;
    cmp->node = ast::Binary{bop, std::move(lhs), std::move(rhs)};
    r.where = std::move(cmp);
    where_from_comparison_ = true;
  }
  return r;
}

namespace {

const char* clause_name(const Node& c) {
  if (c.is_type<g::on_clause>()) return "on";
  if (c.is_type<g::where_clause>()) return "where";
  if (c.is_type<g::while_clause>()) return "while";
  if (c.is_type<g::after_clause>()) return "after";
  if (c.is_type<g::when_clause>()) return "when";
  if (c.is_type<g::alert_clause>()) return "alert";
  if (c.is_type<g::with_clause>()) return "with";
  if (c.is_type<g::group_clause>()) return "group";
  if (c.is_type<g::tags_clause>()) return "tags";
  return "limit";
}

}  // namespace

void Builder::rule_clause(const Node& c, ast::RuleDecl& r) {
  bool duplicate = false;
  if (c.is_type<g::on_clause>()) {
    duplicate = r.event.has_value();
    if (!duplicate) r.event = qualname(*c.children[0]);
  } else if (c.is_type<g::where_clause>()) {
    if (r.where && where_from_comparison_) {
      where_from_comparison_ = false;
      // `ev > 10ms where x`: both conditions hold.
      auto both = std::make_unique<ast::Expr>();
      ast::ExprPtr rhs = expr(*c.children[0]);
      both->range = SourceRange::join(r.where->range, rhs->range);
      both->node = ast::Binary{ast::BinaryOp::And, std::move(r.where), std::move(rhs)};
      r.where = std::move(both);
    } else {
      duplicate = r.where != nullptr;
      if (!duplicate) r.where = expr(*c.children[0]);
    }
  } else if (c.is_type<g::while_clause>()) {
    duplicate = r.while_ != nullptr;
    if (!duplicate) r.while_ = expr(*c.children[0]);
  } else if (c.is_type<g::after_clause>()) {
    duplicate = r.after.has_value();
    if (!duplicate)
      r.after = ast::Correlation{qualname(*c.children[0]), nullptr, expr(*c.children[1]), range(c)};
  } else if (c.is_type<g::when_clause>()) {
    duplicate = r.when != nullptr;
    if (!duplicate) r.when = expr(*c.children[0]);
  } else if (c.is_type<g::alert_clause>()) {
    duplicate = r.alert.has_value();
    if (!duplicate) r.alert = alert(c);
  } else if (c.is_type<g::with_clause>()) {
    duplicate = !r.with.empty();
    if (!duplicate)
      for (const auto& item : c.children) r.with.push_back(ident(*item));
  } else if (c.is_type<g::except_clause>()) {
    r.excepts.push_back(expr(*c.children[0]));  // several exceptions: none of them may hold
  } else if (c.is_type<g::tags_clause>()) {
    duplicate = !r.tags.empty();
    if (!duplicate)
      for (const auto& item : c.children) r.tags.push_back(ident(*item));
  } else if (c.is_type<g::group_clause>()) {
    duplicate = r.group.has_value();
    if (!duplicate) r.group = group(c);
  } else {
    duplicate = r.limit.has_value();
    if (!duplicate) r.limit = limit(c);
  }
  if (duplicate)
    diags_.error(diag::Code::DuplicateClause, range(c),
                 std::string("duplicate '") + clause_name(c) + "' clause in rule '" + r.name.name +
                     "'; each clause may appear once");
}

ast::Alert Builder::alert(const Node& n) {
  ast::Alert a;
  a.range = range(n);
  for (const auto& c : n.children) {
    if (c->is_type<g::severity_word>()) {
      a.severity_word = ident(*c->children[0]);
      const std::string& w = a.severity_word.name;
      if (w == "info") a.severity = ast::Severity::Info;
      if (w == "warning") a.severity = ast::Severity::Warning;
      if (w == "error") a.severity = ast::Severity::Error;
      if (w == "critical") a.severity = ast::Severity::Critical;
      continue;
    }
    // The message: literal text and `{name}` holes, each hole with the exact range of its name.
    SourceRange token = range(*c);
    a.message_range = token;
    MessageValue m = parse_message(c->string_view());
    if (!m.error.empty())
      diags_.error(m.error_is_escape ? diag::Code::InvalidLiteral : diag::Code::SyntaxError,
                   SourceRange{&source_, token.begin + m.error_begin, token.begin + m.error_end}, m.error);
    for (const MessagePiece& piece : m.pieces) {
      ast::MessagePart part;
      part.is_hole = piece.is_hole;
      part.text = piece.text;
      part.range = SourceRange{&source_, token.begin + piece.begin, token.begin + piece.end};
      if (piece.is_hole) {
        part.ref.name.range = part.range;
        size_t at = 0;
        while (at <= piece.text.size()) {
          size_t dot = piece.text.find('.', at);
          if (dot == std::string::npos) dot = piece.text.size();
          size_t b = part.range.begin + at;
          part.ref.name.parts.push_back(
              ast::Ident{piece.text.substr(at, dot - at), SourceRange{&source_, b, b + (dot - at)}});
          at = dot + 1;
        }
      }
      a.message.push_back(std::move(part));
    }
  }
  return a;
}

ast::Limit Builder::limit(const Node& n) {
  ast::Limit l;
  l.range = range(n);
  l.count = static_cast<int64_t>(integer(*n.children[0]));
  l.per_ns = duration_ns(*n.children[1], "limit period");
  if (n.children.size() > 2) l.scope = ident(*n.children[2]);
  return l;
}

ast::Group Builder::group(const Node& n) {
  ast::Group gr;
  gr.range = range(n);
  gr.within_ns = duration_ns(*n.children[0], "group window");
  return gr;
}

}  // namespace seam::parse
