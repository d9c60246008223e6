// Routing from the plan: plan::Route conditions select alerts by severity and rule name, and
// open_outputs() puts each declared output behind its routes (an output no route names takes all).
#include <gtest/gtest.h>

#include <fstream>

#include "runtime/output/plan_outputs.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

using Kind = plan::RouteCondition::Kind;

Alert alert(plan::Severity severity, const std::string& rule) {
  Alert a;
  a.severity = severity;
  a.rule = rule;
  a.message = rule + " fired";
  return a;
}

plan::RouteCondition severity(plan::Compare compare, plan::Severity s) {
  plan::RouteCondition c;
  c.kind = Kind::Severity;
  c.compare = compare;
  c.severity = s;
  return c;
}

plan::RouteCondition rule(plan::Compare compare, const std::string& text, bool prefix = false) {
  plan::RouteCondition c;
  c.kind = Kind::Rule;
  c.compare = compare;
  c.prefix = prefix;
  c.text = text;
  return c;
}

plan::RouteCondition of(Kind kind, std::vector<plan::RouteCondition> operands) {
  plan::RouteCondition c;
  c.kind = kind;
  c.operands = std::move(operands);
  return c;
}

TEST(PlanRoutes, SeverityAndRuleConditions) {
  plan::RouteCondition at_least_error = severity(plan::Compare::Ge, plan::Severity::Error);
  EXPECT_FALSE(route_selects(at_least_error, alert(plan::Severity::Warning, "a")));
  EXPECT_TRUE(route_selects(at_least_error, alert(plan::Severity::Error, "a")));
  EXPECT_TRUE(route_selects(at_least_error, alert(plan::Severity::Critical, "a")));
  EXPECT_TRUE(
      route_selects(severity(plan::Compare::Lt, plan::Severity::Warning), alert(plan::Severity::Info, "a")));

  EXPECT_TRUE(route_selects(rule(plan::Compare::Eq, "sync"), alert(plan::Severity::Info, "sync")));
  EXPECT_FALSE(route_selects(rule(plan::Compare::Eq, "sync"), alert(plan::Severity::Info, "sync2")));
  EXPECT_TRUE(route_selects(rule(plan::Compare::Ne, "sync"), alert(plan::Severity::Info, "sync2")));
  EXPECT_TRUE(
      route_selects(rule(plan::Compare::Eq, "mem", true), alert(plan::Severity::Info, "memcpy_slow")));
  EXPECT_FALSE(route_selects(rule(plan::Compare::Eq, "mem", true), alert(plan::Severity::Info, "sync")));

  plan::RouteCondition both = of(Kind::And, {at_least_error, rule(plan::Compare::Ne, "noisy")});
  EXPECT_TRUE(route_selects(both, alert(plan::Severity::Error, "sync")));
  EXPECT_FALSE(route_selects(both, alert(plan::Severity::Error, "noisy")));
  plan::RouteCondition neither =
      of(Kind::Not, {of(Kind::Or, {at_least_error, rule(plan::Compare::Eq, "x")})});
  EXPECT_TRUE(route_selects(neither, alert(plan::Severity::Info, "y")));
  EXPECT_FALSE(route_selects(neither, alert(plan::Severity::Info, "x")));
  plan::RouteCondition always;
  always.value = true;
  EXPECT_TRUE(route_selects(always, alert(plan::Severity::Info, "y")));
}

// Two json outputs: `severe` behind a route, `all` named by none. Only the routed one filters.
TEST(PlanRoutes, OpenOutputsPutsEachOutputBehindItsRoutes) {
  test::TempDir dir;
  plan::Plan p;
  p.outputs.push_back({"severe", plan::OutputKind::Json, dir.path() + "/severe.jsonl", {}, "r.seam:1"});
  p.outputs.push_back({"all", plan::OutputKind::Json, dir.path() + "/all.jsonl", {}, "r.seam:2"});
  p.routes.push_back({severity(plan::Compare::Ge, plan::Severity::Error), {"severe"}, "r.seam:3"});
  auto sinks = open_outputs(p);
  ASSERT_TRUE(sinks) << sinks.error();
  ASSERT_EQ(sinks->size(), 2u);
  for (auto& sink : *sinks) {
    sink->write(alert(plan::Severity::Warning, "mild"));
    sink->write(alert(plan::Severity::Critical, "bad"));
    sink->flush();
  }
  std::string severe = test::read_file(dir.path() + "/severe.jsonl");
  std::string all = test::read_file(dir.path() + "/all.jsonl");
  EXPECT_EQ(severe.find("mild"), std::string::npos) << severe;
  EXPECT_NE(severe.find("bad"), std::string::npos) << severe;
  EXPECT_NE(all.find("mild"), std::string::npos) << all;
  EXPECT_NE(all.find("bad"), std::string::npos) << all;
}

TEST(PlanRoutes, AnOutputThatCannotOpenNamesItselfAndWhere) {
  plan::Plan p;
  p.outputs.push_back({"ops", plan::OutputKind::Webhook, "ftp://nope", {}, "rules/out.seam:4"});
  auto sinks = open_outputs(p);
  ASSERT_FALSE(sinks);
  EXPECT_EQ(sinks.error(),
            "rules/out.seam:4: output ops: webhook URL 'ftp://nope' must start with http:// or https://");
}

}  // namespace
}  // namespace seam::runtime
