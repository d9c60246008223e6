// syscalls.any and syscalls.enter run as raw tracepoint programs (raw_tracepoint/sys_enter,
// sys_exit: no perf buffer, no record copy before the program), where the kernel has them, and as
// the perf tracepoint programs where it has not (compiler/lower/raw_syscall_tracepoints.hpp).
// Asserted on the plan and on properties of the generated C (and that clang builds it), not on
// its exact text.
#include <gtest/gtest.h>

#include "compiler/build/kernel_types.hpp"
#include "support/build_generated.hpp"
#include "support/compile_text.hpp"

namespace seam::test {
namespace {

constexpr const char* kRule =
    "use syscalls\n"
    "rule slow on syscalls.any where duration > 1ms and args[0] != 7 alert info \"{id} {ret}\"\n"
    "metric entered on syscalls.enter count by id\n";

std::vector<const plan::Attachment*> on(const plan::Plan& p, const std::string& name) {
  std::vector<const plan::Attachment*> out;
  for (const plan::Attachment& a : p.attachments)
    if (a.category == "raw_syscalls" && a.name == name) out.push_back(&a);
  return out;
}

const plan::Attachment* by_program(const plan::Plan& p, const std::string& program) {
  for (const plan::Attachment& a : p.attachments)
    if (a.program == program) return &a;
  return nullptr;
}

bool has_section(const std::string& c, const std::string& section) {
  return c.find("SEC(\"" + section + "\")") != std::string::npos;
}

TEST(CodegenRawSyscalls, RawTracepointsWhereTheKernelHasThem) {
  Compiled c = compile_text(kRule, {}, kernel_with_raw_tracepoints(true));
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  for (const char* name : {"sys_enter", "sys_exit"}) {
    std::vector<const plan::Attachment*> sites = on(p, name);
    ASSERT_EQ(sites.size(), 1u) << name << ": one program, no fallback needed";
    EXPECT_EQ(sites[0]->kind, plan::AttachKind::RawTracepoint) << name;
    EXPECT_EQ(sites[0]->feature, plan::Feature::RawTracepoint) << name;
    EXPECT_TRUE(sites[0]->fallback.empty()) << name;
    EXPECT_EQ(sites[0]->rules, std::vector<uint32_t>{0}) << name;
  }
  const std::string& src = c.generated.c_source;
  EXPECT_TRUE(has_section(src, "raw_tracepoint/sys_enter")) << src;
  EXPECT_TRUE(has_section(src, "raw_tracepoint/sys_exit")) << src;
  EXPECT_FALSE(has_section(src, "tracepoint/raw_syscalls/sys_enter")) << src;
  EXPECT_FALSE(has_section(src, "tracepoint/raw_syscalls/sys_exit")) << src;
  // The fields: id at entry is the tracepoint's second argument, args from the saved registers,
  // ret the exit's second argument; nothing reads a trace record.
  std::string enter = program_text(src, on(p, "sys_enter")[0]->program);
  std::string exit = program_text(src, on(p, "sys_exit")[0]->program);
  EXPECT_NE(enter.find("struct bpf_raw_tracepoint_args *ctx"), std::string::npos) << enter;
  EXPECT_NE(enter.find("ctx->args[1]"), std::string::npos) << enter;
  EXPECT_NE(enter.find("seam_raw_sys_arg(ctx, 0)"), std::string::npos) << enter;
  EXPECT_NE(exit.find("ctx->args[1]"), std::string::npos) << exit;
  EXPECT_EQ((enter + exit).find("ctx->id"), std::string::npos);
  EXPECT_EQ((enter + exit).find("ctx->ret"), std::string::npos);
  EXPECT_NE(std::find(c.lowered.kernel_types.begin(), c.lowered.kernel_types.end(), "pt_regs"),
            c.lowered.kernel_types.end());
}

TEST(CodegenRawSyscalls, PerfTracepointsWhereTheKernelHasNoRawTracepoints) {
  Compiled c = compile_text(kRule, {}, kernel_with_raw_tracepoints(false));
  ASSERT_EQ(c.diagnostics, "");
  for (const char* name : {"sys_enter", "sys_exit"}) {
    std::vector<const plan::Attachment*> sites = on(c.lowered.plan, name);
    ASSERT_EQ(sites.size(), 1u) << name;
    EXPECT_EQ(sites[0]->kind, plan::AttachKind::Tracepoint) << name;
    EXPECT_EQ(sites[0]->feature, plan::Feature::Tracepoint) << name;
  }
  const std::string& src = c.generated.c_source;
  EXPECT_TRUE(has_section(src, "tracepoint/raw_syscalls/sys_enter")) << src;
  EXPECT_TRUE(has_section(src, "tracepoint/raw_syscalls/sys_exit")) << src;
  EXPECT_EQ(src.find("raw_tracepoint/"), std::string::npos) << src;
  EXPECT_EQ(src.find("seam_raw_sys_arg"), std::string::npos) << src;
  EXPECT_NE(program_text(src, on(c.lowered.plan, "sys_enter")[0]->program).find("ctx->id"),
            std::string::npos);
}

// `seam compile` (no kernel asked): the raw tracepoint program, with the perf tracepoint program
// doing the same as its fallback, which the loader attaches only where raw tracepoints are missing.
TEST(CodegenRawSyscalls, WhereTheKernelIsNotKnownThePerfTracepointIsTheFallback) {
  Compiled c = compile_text(kRule);
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  const std::string& src = c.generated.c_source;
  std::string span_map;  // the span's in-flight map, as lowering named it (compiler/lower/map_names.hpp)
  for (const plan::Map& m : p.maps)
    if (m.purpose.ends_with(" in flight")) span_map = m.name;
  ASSERT_FALSE(span_map.empty());
  for (const char* name : {"sys_enter", "sys_exit"}) {
    std::vector<const plan::Attachment*> sites = on(p, name);
    ASSERT_EQ(sites.size(), 2u) << name;
    const plan::Attachment* raw = sites[0]->is_fallback ? sites[1] : sites[0];
    EXPECT_EQ(raw->kind, plan::AttachKind::RawTracepoint) << name;
    EXPECT_FALSE(raw->is_fallback);
    const plan::Attachment* tp = by_program(p, raw->fallback);
    ASSERT_NE(tp, nullptr) << name;
    EXPECT_TRUE(tp->is_fallback);
    EXPECT_EQ(tp->kind, plan::AttachKind::Tracepoint);
    EXPECT_EQ(tp->feature, plan::Feature::Tracepoint);
    EXPECT_EQ(tp->rules, raw->rules) << "the fallback reports the same rules";
    EXPECT_EQ(tp->span_begins, raw->span_begins);
    // Both programs are in the object, doing the same work (the same rule check and span action).
    std::string raw_text = program_text(src, raw->program), tp_text = program_text(src, tp->program);
    EXPECT_TRUE(has_section(raw_text, std::string("raw_tracepoint/") + name)) << raw_text;
    EXPECT_TRUE(has_section(tp_text, std::string("tracepoint/raw_syscalls/") + name)) << tp_text;
    EXPECT_NE(raw_text.find(span_map), std::string::npos) << name << " uses the span's map\n" << raw_text;
    for (const std::string& work : {span_map, std::string("seam_in_scope"), std::string("duration")})
      EXPECT_EQ(raw_text.find(work) == std::string::npos, tp_text.find(work) == std::string::npos)
          << name << " " << work << "\n"
          << raw_text << "\n"
          << tp_text;
  }
  if (!can_build_generated() && in_ci()) FAIL() << "CI needs clang and " << build::kVmlinuxBtfPath;
  if (!can_build_generated()) GTEST_SKIP() << "no clang or kernel BTF: the C was checked, not built";
  build::BuildResult built = build_generated(c.lowered, src);
  ASSERT_TRUE(built.object) << built.object.error() << "\n" << built.clang_stderr << "\n" << src;
}

// A rule that names its syscalls keeps their own (perf) tracepoints: they have no raw tracepoint.
TEST(CodegenRawSyscalls, PerSyscallTracepointsStayPerfTracepoints) {
  Compiled c = compile_text(
      "use syscalls\nrule r on syscalls.any where id == futex and duration > 1ms alert info \"x\"\n", {},
      kernel_with_raw_tracepoints(true));
  ASSERT_EQ(c.diagnostics, "");
  for (const plan::Attachment& a : c.lowered.plan.attachments) {
    EXPECT_EQ(a.kind, plan::AttachKind::Tracepoint) << a.category << ":" << a.name;
    EXPECT_EQ(a.category, "syscalls");
  }
  EXPECT_EQ(c.generated.c_source.find("raw_tracepoint/sys_"), std::string::npos);
}

}  // namespace
}  // namespace seam::test
