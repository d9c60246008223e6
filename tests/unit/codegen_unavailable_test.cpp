// A probe this kernel lacks leaves out only what needs it (compiler/check/availability.hpp):
// the rules and metrics on an event with no probe left, the windowed rules on those metrics,
// while the file's other rules are lowered and generated as before.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

std::optional<std::string> no_sched_nope(const ast::ProbeSpec& p) {
  if (p.kind == ast::ProbeKind::Tracepoint && p.name.rfind("sched_nope", 0) == 0)
    return std::string("this kernel has no such tracepoint");
  return std::nullopt;
}

TEST(CodegenUnavailable, RulesOnAMissingTracepointAreListedNotLowered) {
  Compiled c = compile_text(
      "use cuda\n"
      "point nope = tracepoint sched:sched_nope\n"
      "point either = tracepoint sched:sched_nope2 | tracepoint sched:sched_process_exec\n"
      "rule broken on nope alert info \"x\"\n"
      "metric nopes on nope count\n"
      "rule nopes_fast when rate(nopes) over 10s > 1 alert info \"x\"\n"
      "rule after_nope on cuda.malloc after nope within 1ms alert info \"x\"\n"
      "rule half on either alert info \"x\"\n"
      "rule works on cuda.malloc alert info \"x\"\n",
      {}, {}, no_sched_nope);
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& plan = c.lowered.plan;
  ASSERT_EQ(plan.rules.size(), 2u);
  EXPECT_EQ(plan.rules[0].name, "half");
  EXPECT_EQ(plan.rules[1].name, "works");
  EXPECT_TRUE(plan.metrics.empty());
  EXPECT_TRUE(plan.windows.empty());
  ASSERT_EQ(plan.unavailable_rules.size(), 4u);
  const std::string file = c.dir->path() + "/rules.seam";
  EXPECT_EQ(plan.unavailable_rules[0].name, "nopes");
  EXPECT_TRUE(plan.unavailable_rules[0].metric);
  EXPECT_EQ(plan.unavailable_rules[0].origin, file + ":5");
  EXPECT_EQ(plan.unavailable_rules[0].reason,
            "tracepoint sched:sched_nope: this kernel has no such tracepoint");
  EXPECT_EQ(plan.unavailable_rules[1].name, "broken");
  EXPECT_EQ(plan.unavailable_rules[1].origin, file + ":4");
  EXPECT_EQ(plan.unavailable_rules[2].name, "nopes_fast");
  EXPECT_EQ(plan.unavailable_rules[2].reason,
            "metric nopes: tracepoint sched:sched_nope: this kernel has no such tracepoint");
  EXPECT_EQ(plan.unavailable_rules[3].name, "after_nope");
  // Nothing of the missing tracepoint reaches the C (its struct would not be in the BTF).
  EXPECT_EQ(c.generated.c_source.find("sched_nope"), std::string::npos);
  EXPECT_NE(c.generated.c_source.find("sched_process_exec"), std::string::npos);
  for (const std::string& t : c.lowered.kernel_types) EXPECT_EQ(t.find("sched_nope"), std::string::npos) << t;
  plan::Plan back = nlohmann::json(plan).get<plan::Plan>();
  ASSERT_EQ(back.unavailable_rules.size(), 4u);
  EXPECT_EQ(back.unavailable_rules[2].reason, plan.unavailable_rules[2].reason);
}

TEST(CodegenUnavailable, WithEveryProbeThereNothingIsLeftOut) {
  Compiled c = compile_text("point nope = tracepoint sched:sched_switch\nrule r on nope alert info \"x\"\n",
                            {}, {}, no_sched_nope);
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_EQ(c.lowered.plan.rules.size(), 1u);
  EXPECT_TRUE(c.lowered.plan.unavailable_rules.empty());
}

}  // namespace
}  // namespace seam::test
