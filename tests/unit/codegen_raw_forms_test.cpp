// Tracepoints with a raw form (page faults, reclaim, compaction: compiler/lower/raw_tracepoint_forms.hpp)
// run as raw tracepoint programs whose fields are read from the tracepoint's arguments, where the
// kernel has raw tracepoints, with the perf tracepoint program as the fallback where that is not
// known; an event that reads a field the form lacks keeps its perf tracepoint. Asserted on the plan
// and on properties of the generated C (and that clang builds it), not on its exact text.
#include <gtest/gtest.h>

#include "compiler/build/kernel_types.hpp"
#include "compiler/lower/raw_tracepoint_forms.hpp"
#include "support/build_generated.hpp"
#include "support/compile_text.hpp"

namespace seam::test {
namespace {

constexpr const char* kRules =
    "use mem\n"
    "metric faults on mem.page_fault count by pid\n"
    "rule f on mem.page_fault where error_code == 6 alert info \"{address} {ip}\"\n"
    "rule c on mem.compaction where duration > 1ms alert info \"{migrate_pfn} {free_pfn} {sync} {status}\"\n"
    "rule r on mem.direct_reclaim where duration > 1ms alert info \"{order} {gfp_flags} {nr_reclaimed}\"\n";

std::vector<const plan::Attachment*> on(const plan::Plan& p, const std::string& name) {
  std::vector<const plan::Attachment*> out;
  for (const plan::Attachment& a : p.attachments)
    if (a.name == name) out.push_back(&a);
  return out;
}

TEST(CodegenRawForms, EveryFormsFieldIsRead) {
  for (const lower::RawTracepointForm& form : lower::raw_tracepoint_forms())
    for (const auto& [field, c] : form.fields)
      EXPECT_EQ(lower::raw_tracepoint_field(form.category, form.name, field), std::string(c));
  EXPECT_EQ(lower::raw_tracepoint_field("exceptions", "page_fault_user", "common_pid"), std::nullopt);
  EXPECT_EQ(lower::raw_tracepoint_form("sched", "sched_switch"), nullptr);
}

TEST(CodegenRawForms, RawTracepointsReadTheArgumentsWhereTheKernelHasThem) {
  Compiled c = compile_text(kRules, {}, kernel_with_raw_tracepoints(true));
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  const std::string& src = c.generated.c_source;
  for (const char* name : {"page_fault_user", "mm_compaction_begin", "mm_compaction_end",
                           "mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end"}) {
    std::vector<const plan::Attachment*> sites = on(p, name);
    ASSERT_EQ(sites.size(), 1u) << name << ": one program, no fallback needed";
    EXPECT_EQ(sites[0]->kind, plan::AttachKind::RawTracepoint) << name;
    EXPECT_FALSE(sites[0]->category.empty()) << name << ": the plan keeps the tracepoint's category";
    std::string text = program_text(src, sites[0]->program);
    EXPECT_NE(text.find("SEC(\"raw_tracepoint/" + std::string(name) + "\")"), std::string::npos) << text;
    EXPECT_NE(text.find("struct bpf_raw_tracepoint_args *ctx"), std::string::npos) << text;
  }
  std::string fault = program_text(src, on(p, "page_fault_user")[0]->program);
  EXPECT_NE(fault.find("ctx->args[0]"), std::string::npos) << fault;  // address
  EXPECT_NE(fault.find("ctx->args[2]"), std::string::npos) << fault;  // error_code
  EXPECT_NE(fault.find("SEAM_KERNEL_READ((struct pt_regs *)ctx->args[1], ip)"), std::string::npos) << fault;
  std::string begin = program_text(src, on(p, "mm_compaction_begin")[0]->program);
  EXPECT_NE(begin.find("SEAM_KERNEL_READ((struct compact_control *)ctx->args[0], migrate_pfn)"),
            std::string::npos)
      << begin;
  EXPECT_EQ(src.find("ctx->error_code"), std::string::npos) << "a trace record read\n" << src;
  EXPECT_EQ(src.find("tracepoint/exceptions/"), std::string::npos) << src;
  const std::vector<std::string>& types = c.lowered.kernel_types;
  EXPECT_NE(std::find(types.begin(), types.end(), "compact_control"), types.end());
  EXPECT_NE(std::find(types.begin(), types.end(), "pt_regs"), types.end());
}

TEST(CodegenRawForms, PerfTracepointsWhereTheKernelHasNoRawTracepoints) {
  Compiled c = compile_text(kRules, {}, kernel_with_raw_tracepoints(false));
  ASSERT_EQ(c.diagnostics, "");
  for (const plan::Attachment& a : c.lowered.plan.attachments)
    EXPECT_NE(a.kind, plan::AttachKind::RawTracepoint) << a.category << ":" << a.name;
  EXPECT_NE(c.generated.c_source.find("ctx->error_code"), std::string::npos);
}

// `seam compile` and bundles (no kernel asked): the raw program, and the perf tracepoint program
// doing the same as its fallback, for the loader to choose; both build.
TEST(CodegenRawForms, WhereTheKernelIsNotKnownThePerfTracepointIsTheFallback) {
  Compiled c = compile_text(kRules);
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  std::vector<const plan::Attachment*> sites = on(p, "page_fault_user");
  ASSERT_EQ(sites.size(), 2u);
  const plan::Attachment* raw = sites[0]->is_fallback ? sites[1] : sites[0];
  const plan::Attachment* tp = sites[0]->is_fallback ? sites[0] : sites[1];
  EXPECT_EQ(raw->kind, plan::AttachKind::RawTracepoint);
  EXPECT_EQ(raw->fallback, tp->program);
  EXPECT_EQ(tp->kind, plan::AttachKind::Tracepoint);
  EXPECT_EQ(tp->rules, raw->rules);
  EXPECT_NE(program_text(c.generated.c_source, tp->program).find("ctx->error_code"), std::string::npos);
  if (!can_build_generated() && in_ci()) FAIL() << "CI needs clang and " << build::kVmlinuxBtfPath;
  if (!can_build_generated()) GTEST_SKIP() << "no clang or kernel BTF: the C was checked, not built";
  build::BuildResult built = build_generated(c.lowered, c.generated.c_source);
  ASSERT_TRUE(built.object) << built.object.error() << "\n"
                            << built.clang_stderr << "\n"
                            << c.generated.c_source;
}

// A field the form has no argument for (here a module's own, over the page fault's format):
// the event keeps its perf tracepoint, whatever the kernel has.
TEST(CodegenRawForms, AnEventReadingAFieldTheFormLacksStaysAPerfTracepoint) {
  Compiled c = compile_files({{"m.seam",
                               "module m\npoint fault = tracepoint exceptions:page_fault_user\n"
                               "    (address: u64, common_pid: i32)\n"},
                              {"rules.seam", "use m\nmetric n on m.fault count by common_pid\n"}},
                             {}, kernel_with_raw_tracepoints(true));
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_FALSE(c.lowered.plan.attachments.empty());
  for (const plan::Attachment& a : c.lowered.plan.attachments) {
    if (a.name == "page_fault_user") {
      EXPECT_EQ(a.kind, plan::AttachKind::Tracepoint);
    }
  }
  EXPECT_NE(c.generated.c_source.find("ctx->common_pid"), std::string::npos) << c.generated.c_source;
}

}  // namespace
}  // namespace seam::test
