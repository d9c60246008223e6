// `output` and `route` declarations lowered into the plan (plan::Output, plan::Route): the runtime
// builds its sinks and router from these alone (runtime/output/plan_outputs.hpp).
#include <gtest/gtest.h>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

using Kind = plan::RouteCondition::Kind;

TEST(OutputsPlan, OutputsAndRoutesAreLoweredAsData) {
  Compiled c = compile_text(
      "use cuda\n"
      "output ops  = webhook \"https://alerts.internal/hook\" format alertmanager\n"
      "output log  = json \"/var/log/seam/alerts.jsonl\"\n"
      "output term = stdout\n"
      "route severity >= warning -> ops, log\n"
      "route rule == \"sync\" or (error > severity and not (rule startswith \"mem\")) -> term\n"
      "rule sync\n    on cuda.stream_sync\n    alert warning \"s\"\n");
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  ASSERT_EQ(p.outputs.size(), 3u);
  EXPECT_EQ(p.outputs[0].name, "ops");
  EXPECT_EQ(p.outputs[0].kind, plan::OutputKind::Webhook);
  EXPECT_EQ(p.outputs[0].target, "https://alerts.internal/hook");
  EXPECT_EQ(p.outputs[0].format, plan::WebhookFormat::Alertmanager);
  EXPECT_EQ(p.outputs[0].origin, c.program.rule_files[0].source->path() + ":2");
  EXPECT_EQ(p.outputs[1].kind, plan::OutputKind::Json);
  EXPECT_EQ(p.outputs[1].target, "/var/log/seam/alerts.jsonl");
  EXPECT_EQ(p.outputs[2].kind, plan::OutputKind::Stdout);

  ASSERT_EQ(p.routes.size(), 2u);
  EXPECT_EQ(p.routes[0].outputs, (std::vector<std::string>{"ops", "log"}));
  const plan::RouteCondition& severe = p.routes[0].condition;
  EXPECT_EQ(severe.kind, Kind::Severity);
  EXPECT_EQ(severe.compare, plan::Compare::Ge);
  EXPECT_EQ(severe.severity, plan::Severity::Warning);

  EXPECT_EQ(p.routes[1].outputs, std::vector<std::string>{"term"});
  const plan::RouteCondition& either = p.routes[1].condition;
  ASSERT_EQ(either.kind, Kind::Or);
  ASSERT_EQ(either.operands.size(), 2u);
  EXPECT_EQ(either.operands[0].kind, Kind::Rule);
  EXPECT_EQ(either.operands[0].compare, plan::Compare::Eq);
  EXPECT_FALSE(either.operands[0].prefix);
  EXPECT_EQ(either.operands[0].text, "sync");
  const plan::RouteCondition& both = either.operands[1];
  ASSERT_EQ(both.kind, Kind::And);
  // `error > severity` is `severity < error`.
  EXPECT_EQ(both.operands[0].kind, Kind::Severity);
  EXPECT_EQ(both.operands[0].compare, plan::Compare::Lt);
  EXPECT_EQ(both.operands[0].severity, plan::Severity::Error);
  ASSERT_EQ(both.operands[1].kind, Kind::Not);
  EXPECT_EQ(both.operands[1].operands[0].kind, Kind::Rule);
  EXPECT_TRUE(both.operands[1].operands[0].prefix);
  EXPECT_EQ(both.operands[1].operands[0].text, "mem");
}

TEST(OutputsPlan, AWebhookWithoutFormatLeavesItToTheUrlsOptions) {
  Compiled c = compile_text(
      "use cuda\n"
      "output ops = webhook \"https://alerts.internal/hook\"\n"
      "rule sync\n    on cuda.stream_sync\n    alert warning \"s\"\n");
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_EQ(c.lowered.plan.outputs.size(), 1u);
  EXPECT_EQ(c.lowered.plan.outputs[0].format, plan::WebhookFormat::Default);
  EXPECT_TRUE(c.lowered.plan.routes.empty());
}

}  // namespace
}  // namespace seam::test
