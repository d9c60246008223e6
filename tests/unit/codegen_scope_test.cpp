// `scope` in the plan and the generated C: a scoped file's every program tests the scope map
// first (before the clock, a span, a filter), a host-wide one tests nothing, `--cgroup` scopes
// every file; the modules' workload libraries reach the plan, which round-trips through JSON.
// Files of different scopes compiled together (a bundle) keep each rule's own scope.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "support/build_generated.hpp"
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
  ASSERT_EQ(c.lowered.plan.scopes.size(), 1u);
  EXPECT_EQ(c.lowered.plan.scopes[0].kind, plan::ScopeKind::Workload);
  EXPECT_NE(c.lowered.plan.scopes[0].origin.find("rules.seam:2"), std::string::npos);
  EXPECT_EQ(c.lowered.plan.rules.at(0).scope, 0);
  std::vector<std::string> libs = c.lowered.plan.workload_libraries;
  for (const char* glob : {"libcudart.so*", "libcuda.so*", "libnccl.so*"})
    EXPECT_NE(std::find(libs.begin(), libs.end(), glob), libs.end()) << glob;
  const std::string& src = c.generated.c_source;
  EXPECT_NE(src.find("#include \"seam_scope.h\""), std::string::npos);
  size_t sites = 0;
  for (const std::string& p : site_programs(src)) {
    ++sites;
    size_t test = p.find("if (!seam_in_scope(tgid, 0))");
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

// Where the kernel is known to have raw tracepoints, seam's own sched programs (the exec notice,
// the scope's fork and exit) are raw tracepoint programs, and the plan says so for the loader.
TEST(CodegenScope, SeamsOwnSchedProgramsAreRawTracepointsWhereTheKernelHasThem) {
  lower::Options kernel;
  kernel.has_feature = [](plan::Feature) { return true; };
  Compiled c = compile_text(kFutex, {}, kernel);
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_TRUE(c.lowered.plan.raw_sched_programs);
  EXPECT_TRUE(nlohmann::json(c.lowered.plan).value("raw_sched_programs", false));
  const std::string& src = c.generated.c_source;
  for (const char* event : {"sched_process_exec", "sched_process_fork", "sched_process_exit"}) {
    EXPECT_NE(src.find("SEC(\"raw_tracepoint/" + std::string(event) + "\")"), std::string::npos) << event;
    EXPECT_EQ(src.find("SEC(\"tracepoint/sched/" + std::string(event) + "\")"), std::string::npos) << event;
  }
  EXPECT_NE(src.find("(__u32)SEAM_KERNEL_READ((struct task_struct *)ctx->args[1], pid)"), std::string::npos)
      << src;
  if (!can_build_generated() && in_ci()) FAIL() << "CI needs clang and " << build::kVmlinuxBtfPath;
  if (!can_build_generated()) GTEST_SKIP() << "no clang or kernel BTF: the C was checked, not built";
  build::BuildResult built = build_generated(c.lowered, src);
  ASSERT_TRUE(built.object) << built.object.error() << "\n" << built.clang_stderr << "\n" << src;
  kernel.has_feature = [](plan::Feature f) { return f != plan::Feature::RawTracepoint; };
  Compiled perf = compile_text(kFutex, {}, kernel);
  EXPECT_FALSE(perf.lowered.plan.raw_sched_programs);
  EXPECT_NE(perf.generated.c_source.find("SEC(\"tracepoint/sched/sched_process_exec\")"), std::string::npos);
  EXPECT_NE(perf.generated.c_source.find("(__u32)ctx->child_pid"), std::string::npos);
}

TEST(CodegenScope, AHostFileTestsNothingUnlessTheOperatorScopesTheRun) {
  std::string host =
      std::string(kFutex).replace(std::string(kFutex).find("scope workload"), 14, "scope host");
  Compiled c = compile_text(host);
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_TRUE(c.lowered.plan.scopes.empty());
  EXPECT_EQ(c.lowered.plan.rules.at(0).scope, -1);
  EXPECT_EQ(c.generated.c_source.find("seam_in_scope"), std::string::npos);
  EXPECT_EQ(c.generated.c_source.find("sched_process_fork"), std::string::npos);

  codegen::Options options;
  options.operator_scope = true;
  lower::Options lower_options;
  lower_options.operator_scope = true;
  Compiled scoped = compile_text(host, options, lower_options);
  ASSERT_EQ(scoped.diagnostics, "");
  EXPECT_NE(scoped.generated.c_source.find("if (!seam_in_scope(tgid, 0))"),
            std::string::npos);  // the host slot
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
  ASSERT_EQ(back.scopes.size(), 1u);
  EXPECT_EQ(back.scopes[0].kind, plan::ScopeKind::Comm);
  EXPECT_EQ(back.scopes[0].argument, "python*");
  EXPECT_EQ(back.rules.at(0).scope, 0);
  EXPECT_EQ(back.workload_libraries, c.lowered.plan.workload_libraries);
}

// A bundle merges the pack's files into one object: the futex rule of a workload file and one of
// a host-wide file share the futex tracepoints' programs, and each rule tests its own scope.
TEST(CodegenScope, MergedFilesOfDifferentScopesTestEachRuleOnItsOwn) {
  Compiled c = compile_files({{"a_host.seam", R"(use syscalls
rule everywhere on syscalls.futex where duration > 5ms
    alert info "host"
)"},
                              {"b_workload.seam", kFutex},
                              {"c_comm.seam", R"(use syscalls
scope comm "python*"
rule pythons on syscalls.futex where duration > 2ms
    alert info "python"
)"}});
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& plan = c.lowered.plan;
  ASSERT_EQ(plan.scopes.size(), 2u);
  EXPECT_EQ(plan.scopes[0].kind, plan::ScopeKind::Workload);
  EXPECT_EQ(plan.scopes[1].kind, plan::ScopeKind::Comm);
  std::map<std::string, int> scope_of;
  for (const plan::Rule& r : plan.rules) scope_of[r.name] = r.scope;
  EXPECT_EQ(scope_of, (std::map<std::string, int>{{"everywhere", -1}, {"r", 0}, {"pythons", 1}}));
  const std::string& src = c.generated.c_source;
  EXPECT_NE(src.find("seam_scope_masks[3] = {};"), std::string::npos);
  bool gated_exit = false;
  for (const std::string& p : site_programs(src)) {
    EXPECT_EQ(p.find("if (!seam_in_scope(tgid"), std::string::npos) << "a shared program returned early:\n"
                                                                    << p;
    if (p.find("/* rule ") == std::string::npos) continue;
    gated_exit = true;
    // Each scoped rule's check runs inside its slot's test; the host rule's runs for every process.
    for (const char* rule : {"/* rule 1 */", "/* rule 2 */"}) {
      size_t at = p.find(rule);
      ASSERT_NE(at, std::string::npos) << p;
      size_t test = p.rfind("if (seam_in_scope(tgid, ", at);
      ASSERT_NE(test, std::string::npos) << rule << " in\n" << p;
      EXPECT_EQ(p.substr(test, 26),
                std::string("if (seam_in_scope(tgid, ") + (rule[8] == '1' ? "0" : "1") + ")")
          << p;
    }
    size_t host = p.find("/* rule 0 */");
    ASSERT_NE(host, std::string::npos);
    EXPECT_EQ(p.rfind("seam_in_scope", host), std::string::npos) << p;
  }
  EXPECT_TRUE(gated_exit);
}

}  // namespace
}  // namespace seam::test
