// `limit N per D per process` on rules and shorthand rules.
#include "unit/parse_test_util.hpp"

namespace seam::parse::test {
namespace {

using Messages = std::vector<std::string>;

TEST(ParseLimitScope, RuleClauseKeepsTheScopeWord) {
  auto p = parse("rule r on cuda.malloc alert \"x\" limit 5 per 1m per process group within 10s\n");
  EXPECT_FALSE(p->diags.has_errors()) << p->messages()[0];
  const auto& r = p->only<ast::RuleDecl>();
  ASSERT_TRUE(r.limit.has_value());
  EXPECT_EQ(r.limit->count, 5);
  EXPECT_EQ(r.limit->per_ns, 60'000'000'000);
  ASSERT_TRUE(r.limit->scope.has_value());
  EXPECT_EQ(r.limit->scope->name, "process");
  EXPECT_TRUE(r.group.has_value());
}

TEST(ParseLimitScope, WithoutItTheLimitIsRuleWide) {
  auto p = parse("cudaMalloc > 1ms -> alert with ustack limit 1 per 1s\n");
  EXPECT_FALSE(p->diags.has_errors());
  EXPECT_FALSE(p->only<ast::RuleDecl>().limit->scope.has_value());
}

TEST(ParseLimitScope, ShorthandTakesIt) {
  auto p = parse("cudaMalloc > 1ms -> alert with ustack limit 1 per 1s per process\n");
  EXPECT_FALSE(p->diags.has_errors());
  EXPECT_EQ(p->only<ast::RuleDecl>().limit->scope->name, "process");
}

TEST(ParseLimitScope, AScopeWordMustFollow) {
  EXPECT_EQ(parse("rule r limit 1 per 1s per")->messages(),
            Messages{"E0001 1:26 expected a name, found end of file"});
}

}  // namespace
}  // namespace seam::parse::test
