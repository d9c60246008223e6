// The parser's own diagnostics reach the same report as the checker's, in source order, and a
// file with syntax errors gets no spurious W0003. The message texts belong to the parser (its
// tests pin them); here: code, position and that checking continues around them.
#include <gtest/gtest.h>

#include "unit/check_support.hpp"

namespace {

using seam::test::lint_text;

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

TEST(CheckParserCodes, SyntaxErrorE0001) {
  std::string out =
      lint_text("use cuda\nrule slow\n    on cuda.stream_sync where duration >\n    alert \"slow\"\n");
  EXPECT_TRUE(starts_with(out, "rules/a.seam:4:5: error[E0001]: ")) << out;
  EXPECT_EQ(out.find("W0003"), std::string::npos) << out;
}

TEST(CheckParserCodes, NestingTooDeepE0003) {
  std::string out = lint_text("use cuda\nrule deep\n    on cuda.malloc where " + std::string(66, '(') +
                              "size" + std::string(66, ')') + "\n    alert \"x\"\n");
  EXPECT_TRUE(starts_with(out, "rules/a.seam:3:91: error[E0003]: ")) << out;
}

TEST(CheckParserCodes, InvalidLiteralE0005) {
  std::string out =
      lint_text("use cuda\nrule slow\n    on cuda.stream_sync where duration > 1.5ns\n    alert \"x\"\n");
  EXPECT_TRUE(starts_with(out, "rules/a.seam:3:42: error[E0005]: ")) << out;
}

TEST(CheckParserCodes, ModuleMisplacedE0006) {
  std::string out = lint_text("use cuda\nmodule mine\n");
  EXPECT_TRUE(starts_with(out, "rules/a.seam:2:")) << out;
  EXPECT_NE(out.find("error[E0006]"), std::string::npos) << out;
}

TEST(CheckParserCodes, DuplicateClauseE0203AndCheckerErrorsTogether) {
  std::string out = lint_text(
      "use cuda\nrule slow\n    on cuda.stream_sync where duration > 10\n    alert \"a\"\n    alert \"b\"\n");
  size_t unit = out.find("rules/a.seam:3:42: error[E0303]");
  size_t clause = out.find("rules/a.seam:5:5: error[E0203]");
  EXPECT_NE(unit, std::string::npos) << out;
  EXPECT_NE(clause, std::string::npos) << out;
  EXPECT_LT(unit, clause);
}

}  // namespace
