// `limit ... per process` in the plan: event rules always, windowed rules only over `by pid`
// series, rules without the scope never.
#include <gtest/gtest.h>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

const plan::Rule& rule(const plan::Plan& p, const std::string& name) {
  for (const plan::Rule& r : p.rules)
    if (r.name == name) return r;
  throw std::runtime_error("no rule " + name);
}

TEST(CodegenLimitScope, PerProcessReachesThePlanWhereProcessesCanBeToldApart) {
  Compiled c = compile_text(R"(use cuda
rule event_pp
    on cuda.malloc
    alert "x"
    limit 3 per 1m per process
rule event_wide
    on cuda.malloc
    alert "x"
    limit 3 per 1m
metric by_pid on cuda.launch count by pid
metric by_comm on cuda.launch count by comm
rule windowed_pid
    when rate(by_pid) over 10s > 100000
    alert info "{value}/s"
    limit 1 per 10m per process
rule windowed_comm
    when rate(by_comm) over 10s > 100000
    alert info "{value}/s"
    limit 1 per 10m per process
)");
  const plan::Plan& p = c.lowered.plan;
  EXPECT_TRUE(rule(p, "event_pp").limit_per_process);
  EXPECT_EQ(rule(p, "event_pp").limit_count, 3);
  EXPECT_FALSE(rule(p, "event_wide").limit_per_process);
  EXPECT_TRUE(rule(p, "windowed_pid").limit_per_process);
  EXPECT_FALSE(rule(p, "windowed_comm").limit_per_process);  // W0005: stays rule-wide
  EXPECT_EQ(rule(p, "windowed_comm").limit_count, 1);
}

}  // namespace
}  // namespace seam::test
