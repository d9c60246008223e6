// Parser diagnostics: exact messages and positions, recovery, limits.
#include <chrono>

#include "unit/parse_test_util.hpp"

namespace seam::parse::test {
namespace {

using Messages = std::vector<std::string>;

TEST(ParseErrors, ExpectedMessagesAtTheOffendingToken) {
  EXPECT_EQ(parse("library x = 5")->messages(), Messages{"E0001 1:13 expected a string, found '5'"});
  EXPECT_EQ(parse("library = \"x\"")->messages(), Messages{"E0001 1:9 expected a name, found '='"});
  EXPECT_EQ(parse("library x \"y\"")->messages(), Messages{"E0001 1:11 expected '=', found a string"});
  EXPECT_EQ(parse("span s = lib:f (a: ptr")->messages(),
            Messages{"E0001 1:23 expected ')', found end of file"});
  EXPECT_EQ(parse("span s = lib:f (a ptr)")->messages(), Messages{"E0001 1:19 expected ':', found 'ptr'"});
  EXPECT_EQ(parse("span s = 42")->messages(),
            Messages{"E0001 1:10 expected a call 'library:function' or a pair 'begin .. end', found '42'"});
  EXPECT_EQ(parse("span s = lib:f .. 3")->messages(), Messages{"E0001 1:19 expected a probe, found '3'"});
  EXPECT_EQ(parse("point p = tracepoint sched")->messages(),
            Messages{"E0001 1:27 expected ':', found end of file"});
  EXPECT_EQ(parse("point p = perf cycles at 99")->messages(),
            Messages{"E0001 1:28 expected 'hz', found end of file"});
  EXPECT_EQ(parse("point p = perf cycles")->messages(),
            Messages{"E0001 1:22 expected 'at N hz' or 'every N', found end of file"});
  EXPECT_EQ(parse("state s per day")->messages(),
            Messages{"E0001 1:13 expected 'thread' or 'process', found 'day'"});
  EXPECT_EQ(parse("state s per thread set entry of f")->messages(),
            Messages{"E0001 1:24 expected 'on', found 'entry'"});
  EXPECT_EQ(parse("state s per thread set on entry of 3")->messages(),
            Messages{"E0001 1:36 expected a function, found '3'"});
  EXPECT_EQ(parse("rule r on 3")->messages(), Messages{"E0001 1:11 expected an event name, found '3'"});
  EXPECT_EQ(parse("rule r after x 5ms")->messages(), Messages{"E0001 1:16 expected 'within', found '5ms'"});
  EXPECT_EQ(parse("rule r limit x")->messages(), Messages{"E0001 1:14 expected an integer, found 'x'"});
  EXPECT_EQ(parse("rule r with")->messages(), Messages{"E0001 1:12 expected a name, found end of file"});
  EXPECT_EQ(parse("rule r where (a")->messages(), Messages{"E0001 1:16 expected ')', found end of file"});
  EXPECT_EQ(parse("rule r where a and")->messages(),
            Messages{"E0001 1:19 expected an expression, found end of file"});
  EXPECT_EQ(parse("rule r when p(x) over")->messages(),
            Messages{"E0001 1:22 expected a number, found end of file"});
  EXPECT_EQ(parse("metric m on x")->messages(),
            Messages{"E0001 1:14 expected 'count', 'sum EXPR' or 'hist EXPR', found end of file"});
  EXPECT_EQ(parse("output o = file \"x\"")->messages(),
            Messages{"E0001 1:12 expected 'stdout', 'json PATH' or 'webhook URL', found 'file'"});
  EXPECT_EQ(parse("route x ops")->messages(), Messages{"E0001 1:9 expected '->', found 'ops'"});
  EXPECT_EQ(parse("x > 1 alert")->messages(), Messages{"E0001 1:7 expected '->', found 'alert'"});
  EXPECT_EQ(parse("x > 1 -> with ustack")->messages(), Messages{"E0001 1:10 expected 'alert', found 'with'"});
  EXPECT_EQ(parse("foo bar")->messages(), Messages{"E0001 1:1 expected a declaration, found 'foo'"});
  EXPECT_EQ(parse("  ;")->messages(), Messages{"E0001 1:3 expected a declaration, found ';'"});
}

TEST(ParseErrors, UnterminatedStringPointsAtTheLineEnd) {
  auto p = parse("output o = json \"abc\nrule r on x\n");
  EXPECT_EQ(p->messages(), Messages{"E0001 1:21 expected '\"' to close the string, found end of line"});
  EXPECT_EQ(p->all<ast::RuleDecl>().size(), 1u);
}

TEST(ParseErrors, MessageHoles) {
  EXPECT_EQ(parse("rule r alert \"a {x\"")->messages(),
            Messages{"E0001 1:17 unclosed '{' in message; write '\\{' for a literal brace"});
  EXPECT_EQ(parse("rule r alert \"a {1x} b\"")->messages(),
            Messages{"E0001 1:17 expected a field name inside '{...}', found '1x'"});
  EXPECT_EQ(parse("rule r alert \"a {} b\"")->messages(),
            Messages{"E0001 1:17 expected a field name inside '{...}', found ''"});
}

TEST(ParseErrors, SeveralErrorsReportedInOrderWithRecovery) {
  auto p = parse(
      "module m\n"
      "library x = 5\n"
      "span ok = lib:f\n"
      "rule r\n"
      "  on x where\n"
      "rule good on x\n"
      "state s per thread set on entry of\n"
      "  rule indented_is_not_a_restart_point\n"
      "use a\n"
      "garbage here\n"
      "x > 3ms -> alert\n");
  EXPECT_EQ(p->messages(), (Messages{"E0001 2:13 expected a string, found '5'",
                                     "E0001 6:1 expected an expression, found 'rule'",
                                     "E0001 8:3 expected a function, found 'rule'",
                                     "E0001 10:1 expected a declaration, found 'garbage'"}));
  // Everything that parsed is kept, in order.
  ASSERT_EQ(p->file.decls.size(), 5u);
  EXPECT_TRUE(std::holds_alternative<ast::ModuleDecl>(p->file.decls[0]));
  EXPECT_TRUE(std::holds_alternative<ast::EventDecl>(p->file.decls[1]));
  EXPECT_EQ(std::get<ast::RuleDecl>(p->file.decls[2]).name.name, "good");
  EXPECT_TRUE(std::holds_alternative<ast::UseDecl>(p->file.decls[3]));
  EXPECT_EQ(std::get<ast::RuleDecl>(p->file.decls[4]).name.name, "x_L11");
}

TEST(ParseErrors, ModuleMisplaced) {
  auto p = parse("module a\nmodule b\nspan s = l:f\n");
  EXPECT_EQ(p->messages(),
            Messages{"E0006 2:8 a file declares one module; this one already declared 'module a'"});
  EXPECT_EQ(p->only<ast::EventDecl>().module, "a");

  auto q = parse("use x\nmodule b\n");
  EXPECT_EQ(q->messages(), Messages{"E0006 2:8 'module b' must be the first declaration of the file"});
  EXPECT_EQ(q->file.module(), nullptr);
}

TEST(ParseErrors, DeepNestingStopsQuickly) {
  auto start = std::chrono::steady_clock::now();
  for (const std::string& deep : {std::string(10'000, '(') + "x" + std::string(10'000, ')'),
                                  [] {
                                    std::string s;
                                    for (int i = 0; i < 100'000; ++i) s += "not ";
                                    return s + "x";
                                  }(),
                                  std::string(100'000, '-') + "x"}) {
    auto p = parse("rule r when " + deep + "\nrule after_it on x\n");
    ASSERT_EQ(p->diags.all().size(), 1u) << p->dump();
    EXPECT_EQ(p->diags.all()[0].code, diag::Code::NestingTooDeep);
    EXPECT_EQ(p->diags.all()[0].message, "expression nests deeper than 64 levels");
    EXPECT_EQ(p->only<ast::RuleDecl>().name.name, "after_it");
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// `a and b and c ...` builds a tree as deep as the chain is long: a flat chain is not nesting (65
// terms are fine), but the operands of an expression's chains are bounded (1024 in all).
TEST(ParseErrors, LongOperatorChainsAreBoundedButAreNotNesting) {
  auto chain = [](int operands, const char* op) {
    std::string s = "rule r when x";
    for (int i = 1; i < operands; ++i) s += std::string(" ") + op + " x";
    return s;
  };
  EXPECT_FALSE(parse(chain(65, "and"))->diags.has_errors());
  EXPECT_FALSE(parse(chain(1024, "or"))->diags.has_errors());
  auto p = parse(chain(1025, "and"));
  ASSERT_EQ(p->diags.all().size(), 1u) << p->dump();
  EXPECT_EQ(p->diags.all()[0].code, diag::Code::NestingTooDeep);
  EXPECT_EQ(p->diags.all()[0].message,
            "expression has more than 1024 operands in its chains of `and`, `or` and operators");
  // Chains inside parentheses count together: 64 levels of 1000-operand chains are not 64,000.
  std::string nested = "rule r when x";
  for (int level = 0; level < 3; ++level) {
    std::string inner;
    for (int i = 0; i < 500; ++i) inner += "x or ";
    nested = "rule r when " + inner + "(" + nested.substr(12) + ")";
  }
  EXPECT_EQ(parse(nested)->diags.all().size(), 1u);
  auto start = std::chrono::steady_clock::now();
  auto q = parse(chain(150'000, "or"));
  ASSERT_EQ(q->diags.all().size(), 1u);
  EXPECT_EQ(q->diags.all()[0].code, diag::Code::NestingTooDeep);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(ParseErrors, NestingLimitIsConfigurable) {
  Limits limits;
  limits.max_nesting = 3;  // three parentheses are accepted, as "at most 3" says
  EXPECT_FALSE(parse("rule r when (((x)))", limits)->diags.has_errors());
  auto p = parse("rule r when ((((x))))", limits);
  EXPECT_EQ(p->messages(), Messages{"E0003 1:17 expression nests deeper than 3 levels"});
}

TEST(ParseErrors, HugeFileIsRejectedWithoutParsing) {
  auto start = std::chrono::steady_clock::now();
  std::string huge(100u << 20, '(');
  auto p = parse(huge);
  ASSERT_EQ(p->diags.all().size(), 1u);
  const diag::Diagnostic& d = p->diags.all()[0];
  EXPECT_EQ(d.code, diag::Code::FileTooLarge);
  EXPECT_EQ(d.message, "file is 104857600 bytes; the limit is 1048576 bytes");
  EXPECT_EQ(d.path, "test.seam");
  EXPECT_TRUE(p->file.decls.empty());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(ParseErrors, EmptyAndCommentOnlyFiles) {
  EXPECT_TRUE(parse("")->file.decls.empty());
  auto p = parse("# only a comment\n\n   # and another");
  EXPECT_FALSE(p->diags.has_errors());
  EXPECT_TRUE(p->file.decls.empty());
}

}  // namespace
}  // namespace seam::parse::test
