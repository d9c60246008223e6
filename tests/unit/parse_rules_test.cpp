// Rules: clauses in any order, alerts and their messages, limits, shorthand one-liners.
#include "unit/parse_test_util.hpp"

namespace seam::parse::test {
namespace {

TEST(ParseRules, FullRule) {
  auto p = parse(
      "use cuda, python\n"
      "rule sync_under_gil\n"
      "    on cuda.stream_sync where duration > 10ms while python.gil_held\n"
      "    alert warning \"stream sync blocked {duration} with the GIL held\"\n"
      "    with ustack, pid, tid, comm\n"
      "    limit 10 per 1m\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& r = p->only<ast::RuleDecl>();
  EXPECT_EQ(r.name.name, "sync_under_gil");
  EXPECT_FALSE(r.shorthand);
  ASSERT_TRUE(r.event);
  EXPECT_EQ(r.event->str(), "cuda.stream_sync");
  ASSERT_TRUE(r.where);
  EXPECT_EQ(r.where->range.text(), "duration > 10ms");
  ASSERT_TRUE(r.while_);
  EXPECT_EQ(std::get<ast::NameRef>(r.while_->node).name.str(), "python.gil_held");
  EXPECT_FALSE(r.after);
  EXPECT_FALSE(r.when);
  ASSERT_TRUE(r.alert);
  EXPECT_EQ(r.alert->severity, ast::Severity::Warning);
  EXPECT_EQ(r.alert->severity_word.name, "warning");
  ASSERT_EQ(r.alert->message.size(), 3u);
  EXPECT_FALSE(r.alert->message[0].is_hole);
  EXPECT_EQ(r.alert->message[0].text, "stream sync blocked ");
  EXPECT_TRUE(r.alert->message[1].is_hole);
  EXPECT_EQ(r.alert->message[1].text, "duration");
  EXPECT_EQ(r.alert->message[1].range.text(), "duration");
  EXPECT_EQ(r.alert->message[2].text, " with the GIL held");
  EXPECT_EQ(r.alert->message_range.text(), "\"stream sync blocked {duration} with the GIL held\"");
  ASSERT_EQ(r.with.size(), 4u);
  EXPECT_EQ(r.with[3].name, "comm");
  ASSERT_TRUE(r.limit);
  EXPECT_EQ(r.limit->count, 10);
  EXPECT_EQ(r.limit->per_ns, 60'000'000'000);
  EXPECT_EQ(r.limit->range.text(), "limit 10 per 1m");
  EXPECT_EQ(r.range.begin, p->source->text().find("rule"));
  EXPECT_EQ(r.range.end, p->source->text().size() - 1);
}

TEST(ParseRules, ClausesInAnyOrderAndCorrelation) {
  auto p = parse(
      "rule malloc_before_stall\n"
      "    alert \"stall {duration} right after a cudaMalloc of {cuda.malloc.size}\"\n"
      "    after cuda.malloc within 50ms\n"
      "    on cuda.stream_sync where duration > 100ms\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& r = p->only<ast::RuleDecl>();
  ASSERT_TRUE(r.after);
  EXPECT_EQ(r.after->event.str(), "cuda.malloc");
  EXPECT_EQ(std::get<ast::IntLit>(r.after->within->node).value, 50'000'000);
  EXPECT_EQ(r.after->range.text(), "after cuda.malloc within 50ms");
  ASSERT_TRUE(r.alert);
  EXPECT_FALSE(r.alert->severity);
  EXPECT_EQ(r.alert->severity_word.name, "");
  ASSERT_EQ(r.alert->message.size(), 4u);
  const ast::MessagePart& hole = r.alert->message[3];
  EXPECT_TRUE(hole.is_hole);
  EXPECT_EQ(hole.text, "cuda.malloc.size");
  EXPECT_EQ(hole.range.text(), "cuda.malloc.size");
  ASSERT_EQ(hole.ref.name.parts.size(), 3u);
  EXPECT_EQ(hole.ref.name.parts[1].name, "malloc");
  EXPECT_EQ(hole.ref.name.parts[1].range.text(), "malloc");
  EXPECT_EQ(hole.ref.name.parts[2].range.text(), "size");
}

TEST(ParseRules, WindowedRule) {
  auto p = parse(
      "rule sync_p99\n    when p99(sync_latency) over 1m > 50ms\n"
      "    alert critical \"cudaStreamSynchronize p99 is {value}\"\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& r = p->only<ast::RuleDecl>();
  ASSERT_TRUE(r.when);
  const auto& gt = std::get<ast::Binary>(r.when->node);
  EXPECT_EQ(gt.op, ast::BinaryOp::Gt);
  const auto& call = std::get<ast::Call>(gt.lhs->node);
  EXPECT_EQ(call.function.name, "p99");
  ASSERT_EQ(call.args.size(), 1u);
  EXPECT_EQ(std::get<ast::NameRef>(call.args[0]->node).name.str(), "sync_latency");
  ASSERT_TRUE(call.window);
  EXPECT_EQ(std::get<ast::IntLit>(call.window->node).value, 60'000'000'000);
  EXPECT_EQ(gt.lhs->range.text(), "p99(sync_latency) over 1m");
  EXPECT_EQ(r.alert->severity, ast::Severity::Critical);
}

TEST(ParseRules, SeverityWordsAndUnknownOnes) {
  auto p = parse("rule a alert info\nrule b alert error \"x\"\nrule c alert loud \"x\"\nrule d alert\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  auto r = p->all<ast::RuleDecl>();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0]->alert->severity, ast::Severity::Info);
  EXPECT_TRUE(r[0]->alert->message.empty());
  EXPECT_EQ(r[1]->alert->severity, ast::Severity::Error);
  EXPECT_FALSE(r[2]->alert->severity);  // the checker reports E0501 for `loud`
  EXPECT_EQ(r[2]->alert->severity_word.name, "loud");
  EXPECT_TRUE(r[3]->alert.has_value());
}

TEST(ParseRules, MessageEscapes) {
  auto p = parse(R"(rule a alert "a \{literal\} \"q\" {x}\n\t\\")");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& m = p->only<ast::RuleDecl>().alert->message;
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].text, "a {literal} \"q\" ");
  EXPECT_EQ(m[1].text, "x");
  EXPECT_EQ(m[2].text, "\n\t\\");
}

TEST(ParseRules, Shorthand) {
  auto p = parse("use cuda, python\ncudaStreamSynchronize > 10ms while gil_held -> alert with ustack\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& r = p->only<ast::RuleDecl>();
  EXPECT_TRUE(r.shorthand);
  EXPECT_EQ(r.name.name, "cudaStreamSynchronize_L2");
  ASSERT_TRUE(r.event);
  EXPECT_EQ(r.event->str(), "cudaStreamSynchronize");
  ASSERT_TRUE(r.where);
  const auto& cmp = std::get<ast::Binary>(r.where->node);
  EXPECT_EQ(cmp.op, ast::BinaryOp::Gt);
  EXPECT_EQ(std::get<ast::NameRef>(cmp.lhs->node).name.str(), "duration");
  EXPECT_EQ(cmp.lhs->range.text(), ">");
  EXPECT_EQ(std::get<ast::IntLit>(cmp.rhs->node).value, 10'000'000);
  EXPECT_EQ(r.where->range.text(), "> 10ms");
  ASSERT_TRUE(r.while_);
  ASSERT_TRUE(r.alert);
  EXPECT_FALSE(r.alert->severity);
  ASSERT_EQ(r.with.size(), 1u);
  EXPECT_EQ(r.with[0].name, "ustack");
  EXPECT_EQ(r.range.text(), "cudaStreamSynchronize > 10ms while gil_held -> alert with ustack");
}

TEST(ParseRules, ShorthandVariants) {
  auto p = parse(
      "cuda.malloc where size > 1GiB -> alert error \"big {size}\" limit 1 per 1s\n"
      "a.b.c -> alert\n"
      "x >= 1s where pid == 3 after y within 1s -> alert\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  auto r = p->all<ast::RuleDecl>();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0]->name.name, "malloc_L1");
  EXPECT_EQ(r[0]->where->range.text(), "size > 1GiB");
  EXPECT_EQ(r[0]->alert->severity, ast::Severity::Error);
  EXPECT_EQ(r[0]->limit->per_ns, 1'000'000'000);
  EXPECT_EQ(r[1]->name.name, "c_L2");
  EXPECT_FALSE(r[1]->where);
  // The leading comparison and the where clause both hold.
  const auto& both = std::get<ast::Binary>(r[2]->where->node);
  EXPECT_EQ(both.op, ast::BinaryOp::And);
  EXPECT_EQ(r[2]->where->range.text(), ">= 1s where pid == 3");
  EXPECT_TRUE(r[2]->after);
}

TEST(ParseRules, DeclarationKeywordsEndAClauseList) {
  // `limit` continues the rule; a shorthand line or a `rule` line starts a new declaration, even
  // right after an `alert` with no message (its severity word must not take the next line's name).
  auto p = parse(
      "rule a on x alert warning\n    with ustack, pid, tid, comm\n    limit 10 per 1m\n"
      "cudaMalloc > 1ms -> alert\n"
      "x -> alert\n"
      "rule b on y alert\nfoo where z -> alert critical\nrule c on z\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  auto r = p->all<ast::RuleDecl>();
  ASSERT_EQ(r.size(), 6u);
  EXPECT_TRUE(r[0]->limit);
  EXPECT_EQ(r[0]->with.size(), 4u);
  EXPECT_EQ(r[1]->name.name, "cudaMalloc_L4");
  EXPECT_FALSE(r[1]->alert->severity);
  EXPECT_EQ(r[2]->name.name, "x_L5");
  EXPECT_FALSE(r[3]->alert->severity);
  EXPECT_EQ(r[3]->alert->severity_word.name, "");
  EXPECT_EQ(r[4]->name.name, "foo_L7");
  EXPECT_EQ(r[5]->name.name, "c");
}

TEST(ParseRules, DuplicateClauses) {
  auto p = parse("rule r on a on b where x where y alert alert limit 1 per 1s limit 2 per 1s");
  EXPECT_EQ(p->messages(),
            (std::vector<std::string>{
                "E0203 1:13 duplicate 'on' clause in rule 'r'; each clause may appear once",
                "E0203 1:26 duplicate 'where' clause in rule 'r'; each clause may appear once",
                "E0203 1:40 duplicate 'alert' clause in rule 'r'; each clause may appear once",
                "E0203 1:61 duplicate 'limit' clause in rule 'r'; each clause may appear once"}));
  const auto& r = p->only<ast::RuleDecl>();
  EXPECT_EQ(r.event->str(), "a");  // the first one is kept
  EXPECT_EQ(r.limit->count, 1);

  // A shorthand's leading comparison joins one `where`; a second `where` is a duplicate.
  auto q = parse("x > 1ms where a where b -> alert");
  EXPECT_EQ(q->messages(),
            (std::vector<std::string>{
                "E0203 1:17 duplicate 'where' clause in rule 'x_L1'; each clause may appear once"}));
}

TEST(ParseRules, LimitNeedsATimeUnit) {
  auto p = parse("rule r limit 10 per 60\nrule s limit 10 per 1MiB\n");
  EXPECT_EQ(p->messages(),
            (std::vector<std::string>{
                "E0303 1:21 limit period '60' needs a time unit (ns, us, ms, s, m, h), e.g. 1m",
                "E0301 2:21 limit period '1MiB' must be a duration, not a size"}));
}

}  // namespace
}  // namespace seam::parse::test
