// Expressions: precedence, operators, calls, literals and their units.
#include "compiler/parse/literals.hpp"
#include "unit/parse_test_util.hpp"

namespace seam::parse::test {
namespace {

// Parses `rule r when EXPR` and returns the condition (kept alive by `holder`).
const ast::Expr& when_of(const std::string& expr, std::unique_ptr<Parsed>& holder) {
  holder = parse("rule r when " + expr);
  EXPECT_FALSE(holder->diags.has_errors()) << holder->dump();
  const auto& r = holder->only<ast::RuleDecl>();
  static const ast::Expr none;
  return r.when ? *r.when : none;
}

TEST(ParseExpr, PrecedenceOrAndNotCompare) {
  std::unique_ptr<Parsed> h;
  const ast::Expr& e = when_of("a or not b == 1 and c", h);
  const auto& orx = std::get<ast::Binary>(e.node);
  EXPECT_EQ(orx.op, ast::BinaryOp::Or);
  EXPECT_EQ(std::get<ast::NameRef>(orx.lhs->node).name.str(), "a");
  const auto& andx = std::get<ast::Binary>(orx.rhs->node);
  EXPECT_EQ(andx.op, ast::BinaryOp::And);
  const auto& notx = std::get<ast::Unary>(andx.lhs->node);
  EXPECT_EQ(notx.op, ast::UnaryOp::Not);
  EXPECT_EQ(std::get<ast::Binary>(notx.operand->node).op, ast::BinaryOp::Eq);
  EXPECT_EQ(andx.lhs->range.text(), "not b == 1");
  EXPECT_EQ(orx.rhs->range.text(), "not b == 1 and c");
  EXPECT_EQ(e.range.text(), "a or not b == 1 and c");
}

TEST(ParseExpr, ChainsAreLeftAssociative) {
  std::unique_ptr<Parsed> h;
  const ast::Expr& e = when_of("a and b and c", h);
  const auto& outer = std::get<ast::Binary>(e.node);
  EXPECT_EQ(outer.lhs->range.text(), "a and b");
  EXPECT_EQ(std::get<ast::NameRef>(outer.rhs->node).name.str(), "c");
}

TEST(ParseExpr, EveryComparisonOperator) {
  const std::pair<const char*, ast::BinaryOp> ops[] = {{"==", ast::BinaryOp::Eq},
                                                       {"!=", ast::BinaryOp::Ne},
                                                       {"<=", ast::BinaryOp::Le},
                                                       {">=", ast::BinaryOp::Ge},
                                                       {"<", ast::BinaryOp::Lt},
                                                       {">", ast::BinaryOp::Gt},
                                                       {"startswith", ast::BinaryOp::StartsWith}};
  for (const auto& [text, op] : ops) {
    std::unique_ptr<Parsed> h;
    const ast::Expr& e = when_of(std::string("comm ") + text + " \"py\"", h);
    ASSERT_TRUE(std::holds_alternative<ast::Binary>(e.node)) << text;
    EXPECT_EQ(std::get<ast::Binary>(e.node).op, op) << text;
  }
}

TEST(ParseExpr, ParenthesesNegationAndLiterals) {
  std::unique_ptr<Parsed> h;
  const ast::Expr& e = when_of("(x or true) and -5 < y and false == \"s\\n\"", h);
  const auto& outer = std::get<ast::Binary>(e.node);  // ((paren and cmp) and cmp)
  const auto& inner = std::get<ast::Binary>(outer.lhs->node);
  EXPECT_EQ(inner.lhs->range.text(), "(x or true)");
  EXPECT_EQ(std::get<ast::Binary>(inner.lhs->node).op, ast::BinaryOp::Or);
  EXPECT_TRUE(std::get<ast::BoolLit>(std::get<ast::Binary>(inner.lhs->node).rhs->node).value);
  const auto& lt = std::get<ast::Binary>(inner.rhs->node);
  const auto& neg = std::get<ast::Unary>(lt.lhs->node);
  EXPECT_EQ(neg.op, ast::UnaryOp::Neg);
  EXPECT_EQ(std::get<ast::IntLit>(neg.operand->node).value, 5);
  EXPECT_EQ(lt.lhs->range.text(), "-5");
  const auto& eq = std::get<ast::Binary>(outer.rhs->node);
  EXPECT_FALSE(std::get<ast::BoolLit>(eq.lhs->node).value);
  EXPECT_EQ(std::get<ast::StrLit>(eq.rhs->node).value, "s\n");
}

TEST(ParseExpr, CallsIncludingContextualWords) {
  std::unique_ptr<Parsed> h;
  const ast::Expr& e = when_of("count(x, 1) over 10s > rate() and sum(a.b) > 0", h);
  const auto& andx = std::get<ast::Binary>(e.node);
  const auto& gt = std::get<ast::Binary>(andx.lhs->node);
  const auto& count = std::get<ast::Call>(gt.lhs->node);
  EXPECT_EQ(count.function.name, "count");
  EXPECT_EQ(count.args.size(), 2u);
  EXPECT_EQ(std::get<ast::IntLit>(count.window->node).value, 10'000'000'000);
  const auto& rate = std::get<ast::Call>(gt.rhs->node);
  EXPECT_TRUE(rate.args.empty());
  EXPECT_FALSE(rate.window);
  EXPECT_EQ(std::get<ast::Call>(std::get<ast::Binary>(andx.rhs->node).lhs->node).function.name, "sum");
}

TEST(ParseExpr, UnitsAreNormalised) {
  struct Case {
    const char* text;
    int64_t value;
    ast::Unit unit;
  };
  const Case cases[] = {{"1.5ms", 1'500'000, ast::Unit::Duration},
                        {"4KiB", 4096, ast::Unit::Bytes},
                        {"0x10", 16, ast::Unit::None},
                        {"42", 42, ast::Unit::None},
                        {"7ns", 7, ast::Unit::Duration},
                        {"3us", 3000, ast::Unit::Duration},
                        {"2s", 2'000'000'000, ast::Unit::Duration},
                        {"1h", 3'600'000'000'000, ast::Unit::Duration},
                        {"0.5m", 30'000'000'000, ast::Unit::Duration},
                        {"1B", 1, ast::Unit::Bytes},
                        {"2MiB", 2 << 20, ast::Unit::Bytes},
                        {"1GiB", 1 << 30, ast::Unit::Bytes},
                        {"1TiB", int64_t{1} << 40, ast::Unit::Bytes},
                        {"3KB", 3000, ast::Unit::Bytes},
                        {"1.5MB", 1'500'000, ast::Unit::Bytes},
                        {"2GB", 2'000'000'000, ast::Unit::Bytes},
                        {"0x10KiB", 16 * 1024, ast::Unit::Bytes},
                        {"2.00", 2, ast::Unit::None},
                        {"9223372036854775807", INT64_MAX, ast::Unit::None}};
  for (const Case& c : cases) {
    std::unique_ptr<Parsed> h;
    const ast::Expr& e = when_of(c.text, h);
    ASSERT_TRUE(std::holds_alternative<ast::IntLit>(e.node)) << c.text;
    const auto& lit = std::get<ast::IntLit>(e.node);
    EXPECT_EQ(lit.value, c.value) << c.text;
    EXPECT_EQ(lit.unit, c.unit) << c.text;
    EXPECT_EQ(e.range.text(), c.text);
  }
  std::unique_ptr<Parsed> h;
  EXPECT_EQ(std::get<ast::IntLit>(when_of("10ms", h).node).suffix, "ms");
}

TEST(ParseExpr, InvalidLiterals) {
  auto p = parse(
      "rule r when 1.5ns > 1.5 or 10xs > 99999999999999999999 or 10000000000h > 0 or "
      "1.0000000000000000000001s > 0\n"
      "rule s alert \"bad \\q escape\"\n"
      "point p = lib:f+99999999999999999999\n");
  EXPECT_EQ(
      p->messages(),
      (std::vector<std::string>{
          "E0005 1:13 '1.5ns' is not a whole number of nanoseconds", "E0005 1:21 '1.5' is not a whole number",
          "E0005 1:28 unknown unit 'xs' in '10xs'; write one of ns us ms s m h (time) or B KiB MiB GiB TiB "
          "KB MB GB (size)",
          "E0005 1:35 number '99999999999999999999' is too large (the limit is 9223372036854775807 in the "
          "base unit)",
          "E0005 1:59 number '10000000000h' is too large (the limit is 9223372036854775807 in the base unit)",
          "E0005 1:79 '1.0000000000000000000001s' is not a whole number of nanoseconds",
          "E0005 2:19 invalid escape '\\q' in string; valid escapes are \\\" \\\\ \\n \\t \\{ \\}",
          "E0005 3:17 integer '99999999999999999999' is too large (the limit is 9223372036854775807)"}));
  // The rules are still there, with the literals as 0.
  EXPECT_EQ(p->all<ast::RuleDecl>().size(), 2u);
}

TEST(ParseExpr, ReservedWordsAreNotNames) {
  auto p = parse("rule r where with > 1");
  EXPECT_EQ(p->messages(), std::vector<std::string>{"E0001 1:14 expected an expression, found 'with'"});
}

TEST(Literals, NumberPieces) {
  NumberValue v = parse_number("1.25KiB");
  EXPECT_EQ(v.value, 1280);
  EXPECT_EQ(v.suffix, "KiB");
  EXPECT_TRUE(v.error.empty());
  EXPECT_FALSE(parse_number("1.3B").error.empty());
  EXPECT_EQ(parse_integer("0xff").value, 255u);
}

TEST(Literals, MessagePieceOffsets) {
  MessageValue m = parse_message("\"ab{c.d}e\"");
  ASSERT_TRUE(m.error.empty());
  ASSERT_EQ(m.pieces.size(), 3u);
  EXPECT_EQ(m.pieces[0].begin, 1u);
  EXPECT_EQ(m.pieces[0].end, 3u);
  EXPECT_EQ(m.pieces[1].begin, 4u);
  EXPECT_EQ(m.pieces[1].end, 7u);
  EXPECT_EQ(m.pieces[2].text, "e");
}

}  // namespace
}  // namespace seam::parse::test
