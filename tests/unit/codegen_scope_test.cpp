// `scope` in the plan and the generated C: a scoped file's every program tests the scope map
// first (before the clock, a span, a filter), a host-wide one tests nothing, `--cgroup` scopes
// every file; the modules' workload libraries reach the plan, which round-trips through JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

constexpr const char* kFutex = R"(use syscalls
scope workload
rule r on syscalls.futex where duration > 1ms and op == 0
    alert info "x"
)";

// Each rule site's program, from its signature to its closing brace.
std::vector<std::string> site_programs(const std::string& c) {
  std::vector<std::string> out;
  for (size_t at = c.find("\nint site"); at != std::string::npos; at = c.find("\nint site", at + 1))
    out.push_back(c.substr(at, c.find("\n}\n", at) - at));
  return out;
}

TEST(CodegenScope, AWorkloadFileTestsTheScopeMapBeforeAnythingElse) {
  Compiled c = compile_text(kFutex);
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_EQ(c.lowered.plan.scope.kind, plan::ScopeKind::Workload);
  EXPECT_NE(c.lowered.plan.scope.origin.find("rules.seam:2"), std::string::npos);
  std::vector<std::string> libs = c.lowered.plan.workload_libraries;
  for (const char* glob : {"libcudart.so*", "libcuda.so*", "libnccl.so*"})
    EXPECT_NE(std::find(libs.begin(), libs.end(), glob), libs.end()) << glob;
  const std::string& src = c.generated.c_source;
  EXPECT_NE(src.find("#include \"seam_scope.h\""), std::string::npos);
  size_t sites = 0;
  for (const std::string& p : site_programs(src)) {
    ++sites;
    size_t test = p.find("if (!seam_in_scope(tgid))");
    ASSERT_NE(test, std::string::npos) << p;
    for (const char* later : {"bpf_ktime_get_ns", "bpf_map_lookup_elem", "bpf_map_update_elem", "SEAM_TASK_"})
      if (size_t at = p.find(later); at != std::string::npos) {
        EXPECT_LT(test, at) << later << " in\n" << p;
      }
  }
  EXPECT_EQ(sites, 2u);  // the futex enter and exit tracepoints
  EXPECT_NE(src.find("SEC(\"tracepoint/sched/sched_process_fork\")"), std::string::npos);
  EXPECT_NE(src.find("SEC(\"tracepoint/sched/sched_process_exit\")"), std::string::npos);
}

TEST(CodegenScope, AHostFileTestsNothingUnlessTheOperatorScopesTheRun) {
  std::string host =
      std::string(kFutex).replace(std::string(kFutex).find("scope workload"), 14, "scope host");
  Compiled c = compile_text(host);
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_EQ(c.lowered.plan.scope.kind, plan::ScopeKind::Host);
  EXPECT_EQ(c.generated.c_source.find("seam_in_scope"), std::string::npos);
  EXPECT_EQ(c.generated.c_source.find("sched_process_fork"), std::string::npos);

  codegen::Options options;
  options.operator_scope = true;
  lower::Options lower_options;
  lower_options.operator_scope = true;
  Compiled scoped = compile_text(host, options, lower_options);
  ASSERT_EQ(scoped.diagnostics, "");
  EXPECT_NE(scoped.generated.c_source.find("if (!seam_in_scope(tgid))"), std::string::npos);
  EXPECT_NE(std::find(scoped.lowered.kernel_types.begin(), scoped.lowered.kernel_types.end(),
                      "trace_event_raw_sched_process_fork"),
            scoped.lowered.kernel_types.end());
}

TEST(CodegenScope, TheScopeRoundTripsThroughThePlansJson) {
  Compiled c = compile_text(R"(use syscalls
scope comm "python*"
rule r on syscalls.futex where duration > 1ms
    alert info "x"
)");
  ASSERT_EQ(c.diagnostics, "");
  nlohmann::json j = c.lowered.plan;
  plan::Plan back = j.get<plan::Plan>();
  EXPECT_EQ(back.scope.kind, plan::ScopeKind::Comm);
  EXPECT_EQ(back.scope.argument, "python*");
  EXPECT_EQ(back.workload_libraries, c.lowered.plan.workload_libraries);
}

}  // namespace
}  // namespace seam::test
