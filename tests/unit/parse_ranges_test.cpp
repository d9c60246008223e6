// Source ranges: line and column of a few nodes, and exact bytes of others.
#include "unit/parse_test_util.hpp"

namespace seam::parse::test {
namespace {

TEST(ParseRanges, LinesAndColumns) {
  auto p = parse(
      "module cuda\n"
      "# doc\n"
      "span  malloc = cudart:cudaMalloc (devptr: ptr, size: bytes)\n"
      "\n"
      "rule big\n"
      "    on malloc where size >= 1GiB\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& ev = p->only<ast::EventDecl>();
  EXPECT_EQ(p->at(ev.name.range).line, 3u);
  EXPECT_EQ(p->at(ev.name.range).column, 7u);
  EXPECT_EQ(p->at(ev.begin[0].range).column, 16u);
  EXPECT_EQ(p->at(ev.begin[0].symbol_range).column, 23u);
  EXPECT_EQ(p->at(ev.fields[1].name.range).column, 48u);
  EXPECT_EQ(ev.fields[1].type.name.range.text(), "bytes");

  const auto& r = p->only<ast::RuleDecl>();
  EXPECT_EQ(p->at(r.range).line, 5u);
  EXPECT_EQ(p->at(r.range).column, 1u);
  EXPECT_EQ(p->at(r.event->range).line, 6u);
  EXPECT_EQ(p->at(r.event->range).column, 8u);
  const auto& ge = std::get<ast::Binary>(r.where->node);
  EXPECT_EQ(p->at(ge.rhs->range).column, 29u);
  EXPECT_EQ(ge.rhs->range.text(), "1GiB");
  EXPECT_EQ(ge.lhs->range.text(), "size");
}

TEST(ParseRanges, CommentsBetweenTokensAreNotInRanges) {
  auto p = parse("rule r where # why\n   x # really\n   > 1\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& r = p->only<ast::RuleDecl>();
  EXPECT_EQ(r.where->range.text(), "x # really\n   > 1");
  EXPECT_EQ(p->at(r.where->range).line, 2u);
}

TEST(ParseRanges, StringAndHoleRangesAreExactBytes) {
  auto p = parse("rule r alert \"esc \\\" then {a.b}\"");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& m = p->only<ast::RuleDecl>().alert->message;
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].text, "esc \" then ");
  EXPECT_EQ(m[0].range.text(), "esc \\\" then ");
  EXPECT_EQ(m[1].range.text(), "a.b");
  EXPECT_EQ(p->at(m[1].range).column, 28u);
}

}  // namespace
}  // namespace seam::parse::test
