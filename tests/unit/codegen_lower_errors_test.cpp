// Lowering never fails open: a checked condition it has no kernel form for is an error naming the
// rule, never a rule that matches every event.
#include <gtest/gtest.h>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

lower::Input input_of(const check::Program& p) {
  lower::Input input;
  for (const ast::File& f : p.modules) input.modules.push_back(&f);
  for (const ast::File& f : p.rule_files) input.rule_files.push_back(&f);
  return input;
}

ast::RuleDecl& first_rule(check::Program& p) {
  for (ast::Decl& d : p.rule_files.at(0).decls)
    if (auto* r = std::get_if<ast::RuleDecl>(&d)) return *r;
  throw std::runtime_error("no rule");
}

TEST(LowerErrors, AConditionWithoutAKernelFormIsAnErrorNotTrue) {
  Compiled c = compile_text("use mem\nrule faults on mem.page_fault where address > 4096 alert \"x\"\n");
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_NO_THROW(lower::lower(input_of(c.program)));

  // What a checker that let an arithmetic test through would hand over: `address + 1`.
  ast::RuleDecl& rule = first_rule(c.program);
  std::get<ast::Binary>(rule.where->node).op = ast::BinaryOp::Add;
  try {
    lower::lower(input_of(c.program));
    FAIL() << "lowered a condition it cannot evaluate";
  } catch (const lower::LowerError& e) {
    EXPECT_NE(std::string(e.what()).find("rules.seam:2: rule faults: a condition seam cannot evaluate"),
              std::string::npos)
        << e.what();
  }

  // And a condition that is not a test at all: `where 5`.
  rule.where->node = ast::IntLit{5, ast::Unit::None, ""};
  EXPECT_THROW(lower::lower(input_of(c.program)), lower::LowerError);
}

}  // namespace
}  // namespace seam::test
