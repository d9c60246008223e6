// `group within D` on rules and shorthand rules.
#include "unit/parse_test_util.hpp"

namespace seam::parse::test {
namespace {

using Messages = std::vector<std::string>;

TEST(ParseGroup, RuleClauseKeepsTheWindow) {
  auto p = parse("rule r on cuda.malloc alert \"x\" limit 5 per 1m group within 10s\n");
  EXPECT_FALSE(p->diags.has_errors()) << p->messages()[0];
  const auto& r = p->only<ast::RuleDecl>();
  ASSERT_TRUE(r.group.has_value());
  EXPECT_EQ(r.group->within_ns, 10'000'000'000);
  ASSERT_TRUE(r.limit.has_value());
}

TEST(ParseGroup, ShorthandTakesItAfterLimit) {
  auto p = parse("cudaMalloc > 1ms -> alert with ustack limit 1 per 1s group within 250ms\n");
  EXPECT_FALSE(p->diags.has_errors());
  EXPECT_EQ(p->only<ast::RuleDecl>().group->within_ns, 250'000'000);
}

TEST(ParseGroup, ErrorsNameTheClause) {
  EXPECT_EQ(parse("rule r group 10s")->messages(), Messages{"E0001 1:14 expected 'within', found '10s'"});
  EXPECT_EQ(parse("rule r group within 1s group within 2s")->messages(),
            Messages{"E0203 1:24 duplicate 'group' clause in rule 'r'; each clause may appear once"});
  EXPECT_EQ(parse("rule group")->messages().size(), 1u);  // a reserved word is not a name
}

}  // namespace
}  // namespace seam::parse::test
