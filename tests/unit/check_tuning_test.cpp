// Tuning a pack from another file (compiler/check/tuning.*): overrides, toggles by name and tag,
// exceptions, lists and `in`, and their diagnostics E0113, E0114, E0204, E0509 with the text
// `seam lint` prints (docs/diagnostics.md).
#include <gtest/gtest.h>

#include "unit/check_support.hpp"

namespace {

using seam::check::RuleToggle;
using seam::test::check_files;
using seam::test::lint_files;
namespace ast = seam::ast;

const char* const kPack = R"(use syscalls
rule futex_wait_slow
    on syscalls.futex where duration > 1ms and op & 0x7f == 0
    alert info "waited {duration}"
    tags syscalls, waits
rule syscall_slow
    on syscalls.any where duration > 1ms and id not in (futex, poll)
    alert info "{id}"
    tags syscalls
)";

std::vector<std::string> rule_names(const seam::check::Program& p) {
  std::vector<std::string> out;
  for (const ast::File& f : p.rule_files)
    for (const ast::Decl& d : f.decls)
      if (const auto* r = std::get_if<ast::RuleDecl>(&d)) out.push_back(r->name.name);
  return out;
}

const ast::RuleDecl& rule(const seam::check::Program& p, const std::string& name) {
  for (const ast::File& f : p.rule_files)
    for (const ast::Decl& d : f.decls)
      if (const auto* r = std::get_if<ast::RuleDecl>(&d); r && r->name.name == name) return *r;
  throw std::runtime_error("no rule " + name);
}

TEST(CheckTuning, InASetIsAChainOfEqualities) {
  seam::check::Program p = check_files({{"rules/a.seam", R"(use syscalls
list waiting = (futex, poll)
rule r on syscalls.any where id in waiting alert "{id}"
rule s on syscalls.any where id not in (futex, 7) alert "{id}"
)"}});
  ASSERT_EQ(p.diagnostics.error_count(), 0u);
  const auto& either = std::get<ast::Binary>(rule(p, "r").where->node);
  EXPECT_EQ(either.op, ast::BinaryOp::Or);
  EXPECT_EQ(std::get<ast::IntLit>(std::get<ast::Binary>(either.lhs->node).rhs->node).value, 202);  // futex
  EXPECT_EQ(std::get<ast::IntLit>(std::get<ast::Binary>(either.rhs->node).rhs->node).value, 7);    // poll
  const auto& negated = std::get<ast::Unary>(rule(p, "s").where->node);
  EXPECT_EQ(negated.op, ast::UnaryOp::Not);
}

TEST(CheckTuning, UnknownListE0113) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use syscalls
rule r on syscalls.any where id in wating alert "{id}"
)"}}),
            R"(rules/a.seam:2:36: error[E0113]: unknown list 'wating'
    2 | rule r on syscalls.any where id in wating alert "{id}"
      |                                    ^~~~~~
      = hint: declare it before its use in this file: list wating = (...)

1 error, 0 warnings
)");
}

TEST(CheckTuning, DisabledRuleLeavesTheProgram) {
  seam::check::Program p =
      check_files({{"rules/pack.seam", kPack}, {"local/tune.seam", "disable rule futex_wait_slow\n"}});
  EXPECT_EQ(p.diagnostics.error_count(), 0u);
  EXPECT_EQ(rule_names(p), std::vector<std::string>{"syscall_slow"});
  ASSERT_EQ(p.tuned.size(), 1u);
  EXPECT_TRUE(p.tuned[0].disabled);
  EXPECT_EQ(p.tuned[0].disabled_by, "local/tune.seam:1");
}

TEST(CheckTuning, DisableByTagAndEnableByNameOutranksIt) {
  seam::check::Program p = check_files(
      {{"rules/pack.seam", kPack}, {"local/tune.seam", "disable tag syscalls\nenable rule syscall_slow\n"}});
  EXPECT_EQ(p.diagnostics.error_count(), 0u);
  EXPECT_EQ(rule_names(p), std::vector<std::string>{"syscall_slow"});
}

TEST(CheckTuning, CommandLineOutranksFiles) {
  seam::check::Program p =
      check_files({{"rules/pack.seam", kPack}, {"local/tune.seam", "disable tag syscalls\n"}},
                  {RuleToggle{true, true, "waits"}});
  EXPECT_EQ(rule_names(p), std::vector<std::string>{"futex_wait_slow"});
  p = check_files({{"rules/pack.seam", kPack}}, {RuleToggle{false, true, "syscalls"}});
  EXPECT_TRUE(rule_names(p).empty());
}

TEST(CheckTuning, ThresholdExceptAndSeverityChangeTheRule) {
  seam::check::Program p =
      check_files({{"rules/pack.seam", kPack}, {"local/tune.seam", R"(override rule futex_wait_slow
    threshold 20ms
    except comm == "batchjob"
    alert warning
)"}});
  ASSERT_EQ(p.diagnostics.error_count(), 0u);
  const ast::RuleDecl& r = rule(p, "futex_wait_slow");
  EXPECT_EQ(*r.alert->severity, ast::Severity::Warning);
  // where (duration > 20ms and op & 0x7f == 0) and not (comm == "batchjob")
  const auto& all = std::get<ast::Binary>(r.where->node);
  EXPECT_EQ(all.op, ast::BinaryOp::And);
  EXPECT_TRUE(std::holds_alternative<ast::Unary>(all.rhs->node));
  const auto& own = std::get<ast::Binary>(all.lhs->node);
  const auto& threshold = std::get<ast::Binary>(own.lhs->node);
  EXPECT_EQ(std::get<ast::IntLit>(threshold.rhs->node).value, 20'000'000);
  ASSERT_EQ(p.tuned.size(), 1u);
  EXPECT_EQ(p.tuned[0].clauses,
            (std::vector<std::string>{"on syscalls.futex", "where duration > 20ms and op & 0x7f == 0",
                                      "except comm == \"batchjob\"", "alert warning \"waited {duration}\"",
                                      "tags syscalls, waits"}));
  EXPECT_EQ(p.tuned[0].tuned_by, std::vector<std::string>{"local/tune.seam:1"});
}

TEST(CheckTuning, UnknownRuleE0114WithDidYouMean) {
  EXPECT_EQ(lint_files({{"rules/pack.seam", kPack}, {"local/tune.seam", "disable rule futex_wait_slwo\n"}}),
            R"(local/tune.seam:1:14: error[E0114]: no rule is named 'futex_wait_slwo'
    1 | disable rule futex_wait_slwo
      |              ^~~~~~~~~~~~~~~
      = hint: did you mean futex_wait_slow?

1 error, 0 warnings
)");
}

TEST(CheckTuning, UnknownTagOnTheCommandLineE0114) {
  EXPECT_EQ(lint_files({{"rules/pack.seam", kPack}}, {RuleToggle{false, true, "wait"}}),
            "--disable tag:wait: error[E0114]: no rule is tagged 'wait'\n"
            "  = hint: did you mean waits?\n\n1 error, 0 warnings\n");
}

TEST(CheckTuning, ConflictingTogglesE0204) {
  EXPECT_EQ(lint_files({{"rules/pack.seam", kPack},
                        {"local/tune.seam", "disable tag waits\nenable tag syscalls\n"}}),
            R"(local/tune.seam:2:12: error[E0204]: rule 'futex_wait_slow' is both enabled and disabled
    2 | enable tag syscalls
      |            ^~~~~~~~
      = hint: disabled by local/tune.seam:1; remove one (a rule's own name outranks its tags, the command line outranks files)

1 error, 0 warnings
)");
}

TEST(CheckTuning, TwoThresholdsE0204) {
  EXPECT_EQ(lint_files({{"rules/pack.seam", kPack},
                        {"local/a.seam", "override rule futex_wait_slow threshold 5ms\n"},
                        {"local/b.seam", "override rule futex_wait_slow threshold 9ms\n"}}),
            R"(local/b.seam:1:41: error[E0204]: rule 'futex_wait_slow' has its threshold set by two overrides
    1 | override rule futex_wait_slow threshold 9ms
      |                                         ^~~
      = hint: the other is at local/a.seam:1; keep one

1 error, 0 warnings
)");
}

TEST(CheckTuning, ThresholdWithoutAComparisonE0509) {
  EXPECT_EQ(
      lint_files(
          {{"rules/pack.seam", kPack}, {"local/tune.seam", "override rule syscall_slow threshold 1MiB\n"}}),
      R"(local/tune.seam:1:38: error[E0509]: rule 'syscall_slow' has no size threshold (a `where` term such as `duration > 1ms`) to change
    1 | override rule syscall_slow threshold 1MiB
      |                                      ^~~~
      = hint: give a time or size with its unit, or replace the condition with `where ...`

1 error, 0 warnings
)");
}

TEST(CheckTuning, ExceptOnARuleIsChecked) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use syscalls
rule r on syscalls.futex where duration > 1ms except comm == 3 alert "x"
)"}}).find("error[E0302]") != std::string::npos,
            true);
}

}  // namespace
