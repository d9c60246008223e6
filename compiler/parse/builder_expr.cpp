// Expressions, names and literals.
#include "compiler/parse/builder.hpp"
#include "compiler/parse/grammar.hpp"
#include "compiler/parse/literals.hpp"
#include "compiler/parse/trivia.hpp"

namespace seam::parse {

namespace g = grammar;

SourceRange Builder::range(const Node& n) const {
  const char* base = source_.text().data();
  if (n.has_content()) {
    size_t begin = skip_trivia(source_.text(), static_cast<size_t>(n.m_begin.data - base));
    size_t end = static_cast<size_t>(n.m_end.data - base);
    return SourceRange{&source_, std::min(begin, end), end};
  }
  // A node that gave up its content (fold_one) spans its children.
  if (n.children.empty()) return SourceRange{&source_, 0, 0};
  return SourceRange::join(range(*n.children.front()), range(*n.children.back()));
}

ast::Ident Builder::ident(const Node& n) const {
  return ast::Ident{n.string(), range(n)};
}

ast::QualName Builder::qualname(const Node& n) const {
  ast::QualName q;
  for (const auto& part : n.children) q.parts.push_back(ident(*part));
  q.range = range(n);
  return q;
}

uint64_t Builder::integer(const Node& n) {
  IntegerValue v = parse_integer(n.string_view());
  if (!v.error.empty()) diags_.error(diag::Code::InvalidLiteral, range(n), v.error);
  return v.value;
}

std::string Builder::string_value(const Node& n) {
  StringValue v = parse_string(n.string_view());
  if (!v.error.empty()) {
    SourceRange r = range(n);
    r.begin += v.error_offset;
    r.end = std::min(r.begin + 2, r.end);
    diags_.error(diag::Code::InvalidLiteral, r, v.error);
  }
  return v.value;
}

// `limit N per D` and `interval D` keep only a number of nanoseconds, so their unit is checked here.
int64_t Builder::duration_ns(const Node& n, const char* what) {
  NumberValue v = parse_number(n.string_view());
  if (!v.error.empty()) {
    diags_.error(diag::Code::InvalidLiteral, range(n), v.error);
    return 0;
  }
  if (v.unit == ast::Unit::None)
    diags_.error(
        diag::Code::MissingUnit, range(n),
        std::string(what) + " '" + n.string() + "' needs a time unit (ns, us, ms, s, m, h), e.g. 1m");
  else if (v.unit != ast::Unit::Duration)
    diags_.error(diag::Code::UnitMismatch, range(n),
                 std::string(what) + " '" + n.string() + "' must be a duration, not a size");
  return v.value;
}

ast::ExprPtr Builder::number(const Node& n) {
  auto e = std::make_unique<ast::Expr>();
  e->range = range(n);
  NumberValue v = parse_number(n.string_view());
  if (!v.error.empty()) diags_.error(diag::Code::InvalidLiteral, e->range, v.error);
  e->node = ast::IntLit{v.value, v.unit, v.suffix};
  return e;
}

ast::ExprPtr Builder::binary_chain(const Node& n, ast::BinaryOp op) {
  ast::ExprPtr lhs = expr(*n.children.front());
  for (size_t i = 1; i < n.children.size(); ++i) {
    ast::ExprPtr rhs = expr(*n.children[i]);
    auto e = std::make_unique<ast::Expr>();
    e->range = SourceRange::join(lhs->range, rhs->range);
    e->node = ast::Binary{op, std::move(lhs), std::move(rhs)};
    lhs = std::move(e);
  }
  return lhs;
}

namespace {

ast::BinaryOp compare_op(std::string_view op) {
  if (op == "==") return ast::BinaryOp::Eq;
  if (op == "!=") return ast::BinaryOp::Ne;
  if (op == "<=") return ast::BinaryOp::Le;
  if (op == ">=") return ast::BinaryOp::Ge;
  if (op == "<") return ast::BinaryOp::Lt;
  if (op == ">") return ast::BinaryOp::Gt;
  return ast::BinaryOp::StartsWith;
}

}  // namespace

// `a + b - c`: children alternate operand, operator, operand; the tree is left-deep.
ast::ExprPtr Builder::arithmetic_chain(const Node& n) {
  ast::ExprPtr lhs = expr(*n.children.front());
  for (size_t i = 1; i + 1 < n.children.size(); i += 2) {
    std::string_view op = n.children[i]->string_view();
    ast::BinaryOp o = op == "*"    ? ast::BinaryOp::Mul
                      : op == "/"  ? ast::BinaryOp::Div
                      : op == "%"  ? ast::BinaryOp::Mod
                      : op == "+"  ? ast::BinaryOp::Add
                      : op == "-"  ? ast::BinaryOp::Sub
                      : op == "<<" ? ast::BinaryOp::Shl
                      : op == ">>" ? ast::BinaryOp::Shr
                      : op == "&"  ? ast::BinaryOp::BitAnd
                      : op == "^"  ? ast::BinaryOp::BitXor
                                   : ast::BinaryOp::BitOr;
    ast::ExprPtr rhs = expr(*n.children[i + 1]);
    auto e = std::make_unique<ast::Expr>();
    e->range = SourceRange::join(lhs->range, rhs->range);
    e->node = ast::Binary{o, std::move(lhs), std::move(rhs)};
    lhs = std::move(e);
  }
  return lhs;
}

ast::ExprPtr Builder::expr(const Node& n) {
  if (n.is_type<g::product>() || n.is_type<g::sum>() || n.is_type<g::shifted>() || n.is_type<g::bit_and>() ||
      n.is_type<g::bit_xor>() || n.is_type<g::bit_or>())
    return arithmetic_chain(n);
  if (n.is_type<g::or_expr>()) return binary_chain(n, ast::BinaryOp::Or);
  if (n.is_type<g::and_expr>()) return binary_chain(n, ast::BinaryOp::And);
  if (n.is_type<g::number>()) return number(n);

  auto e = std::make_unique<ast::Expr>();
  e->range = range(n);
  if (n.is_type<g::compare>() && n.children[1]->is_type<g::membership>()) return membership(n);
  if (n.is_type<g::compare>()) {
    ast::ExprPtr lhs = expr(*n.children[0]);
    ast::ExprPtr rhs = expr(*n.children[2]);
    e->node = ast::Binary{compare_op(n.children[1]->string_view()), std::move(lhs), std::move(rhs)};
  } else if (n.is_type<g::negation>()) {
    e->node = ast::Unary{ast::UnaryOp::Not, expr(*n.children[0])};
  } else if (n.is_type<g::negate>()) {
    e->node = ast::Unary{ast::UnaryOp::Neg, expr(*n.children[0])};
  } else if (n.is_type<g::paren>()) {
    // The parenthesised expression itself, with the parentheses in its range.
    ast::ExprPtr inner = expr(*n.children[0]);
    inner->range = e->range;
    return inner;
  } else if (n.is_type<g::string_lit>()) {
    e->node = ast::StrLit{string_value(n)};
  } else if (n.is_type<g::kw_true>() || n.is_type<g::kw_false>()) {
    e->node = ast::BoolLit{n.is_type<g::kw_true>()};
  } else if (n.is_type<g::call>()) {
    ast::Call call;
    call.function = ident(*n.children[0]);
    for (size_t i = 1; i < n.children.size(); ++i) {
      if (n.children[i]->is_type<g::window>())
        call.window = number(*n.children[i]->children[0]);
      else
        call.args.push_back(expr(*n.children[i]));
    }
    e->node = std::move(call);
  } else if (n.is_type<g::table>()) {
    ast::Table table;
    for (size_t i = 0; i + 1 < n.children.size(); ++i) table.entries.push_back(number(*n.children[i]));
    table.index = expr(*n.children.back());
    e->node = std::move(table);
  } else if (n.is_type<g::indexed>()) {
    ast::NameRef ref;
    ref.name = qualname(*n.children[0]);
    ref.index = static_cast<int64_t>(integer(*n.children[1]));
    ref.index_range = range(*n.children[1]);
    e->node = std::move(ref);
  } else if (n.is_type<g::rule_ref>()) {
    ast::NameRef ref;
    ref.name = ast::QualName{{ident(n)}, e->range};
    e->node = std::move(ref);
  } else {  // qualname
    ast::NameRef ref;
    ref.name = qualname(n);
    e->node = std::move(ref);
  }
  return e;
}

}  // namespace seam::parse
