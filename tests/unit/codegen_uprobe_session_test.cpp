// python.gil_wait where the kernel has uprobe sessions (compiler/lower/uprobe_session.cpp): the
// entry and the return of take_gil are one program, which ends the span at the entry with
// duration 0 when the GIL reads free and returns 1 there; without sessions, or where the span's
// end needs what only the return has, the entry and return probes stay as they were. Asserted on
// the plan and the generated C.
#include <gtest/gtest.h>

#include "compiler/build/embedded.hpp"
#include "support/compile_text.hpp"

namespace seam::test {
namespace {

constexpr const char* kGilWait = "use python\nmetric gil_wait_time on python.gil_wait hist duration by pid\n";

size_t attachments_of(const plan::Plan& p, plan::AttachKind kind) {
  size_t n = 0;
  for (const plan::Attachment& a : p.attachments) n += a.kind == kind;
  return n;
}

lower::Options with_sessions() {
  lower::Options o;
  o.uprobe_session = [] { return true; };
  return o;
}

TEST(CodegenUprobeSession, GilWaitIsOneSessionProgramThatEndsAtTheEntryWhenTheGilIsFree) {
  Compiled c = compile_text(kGilWait, {}, with_sessions());
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  EXPECT_EQ(attachments_of(p, plan::AttachKind::Uretprobe), 0u);
  ASSERT_EQ(attachments_of(p, plan::AttachKind::Uprobe), 1u);
  ASSERT_EQ(c.lowered.sites.size(), 1u);
  const plan::Site& site = c.lowered.sites[0];
  EXPECT_EQ(site.section, plan::kUprobeSessionSection);
  EXPECT_EQ(site.session_span, 0);
  ASSERT_EQ(site.actions.size(), 2u);
  EXPECT_EQ(site.actions[0].kind, plan::ActionKind::SpanBegin);
  EXPECT_EQ(site.actions[1].kind, plan::ActionKind::SpanEnd);
  // The GIL's state is read from the interpreter's memory: the runtime fills the reader's map.
  ASSERT_EQ(p.memory_readers.size(), 1u);
  EXPECT_EQ(p.memory_readers[0].reader, "cpython_gil");
  EXPECT_EQ(site.early_end_map, p.memory_readers[0].map);
  ASSERT_EQ(p.attachments[0].span_begins.size(), 1u);
  EXPECT_NE(p.attachments[0].span_begins[0].find("uprobe session"), std::string::npos);

  const std::string& src = c.generated.c_source;
  // The kfunc is called through the placeholder helper that the loader rewrites: no extern
  // __ksym, which would make libbpf parse the kernel's whole BTF at each load.
  EXPECT_NE(src.find("#include \"seam_session.h\""), std::string::npos) << src;
  const std::optional<std::string_view> header = embedded::find("seam_session.h");
  ASSERT_TRUE(header);
  EXPECT_NE(header->find("(void *)" + std::to_string(plan::kSessionIsReturnPlaceholder) + ";"),
            std::string::npos)
      << "the header's placeholder is the one the loader rewrites\n"
      << *header;
  EXPECT_EQ(src.find("__ksym"), std::string::npos) << src;
  EXPECT_EQ(src.find("SEC(\"uretprobe"), std::string::npos);
  std::string prog = program_text(src, p.attachments[0].program);
  ASSERT_NE(prog, "") << src;
  EXPECT_NE(prog.find("SEC(\"uprobe.session\")"), std::string::npos) << prog;
  // Entry: the free GIL ends the span with duration 0, updates the histogram, and returns 1.
  size_t entry = prog.find("if (!seam_session_is_return())");
  size_t free_test = prog.find("seam_py_gil_free(&" + site.early_end_map + ", tgid)");
  size_t early = prog.find("ends at its entry");
  size_t skip_return = prog.find("return 1; /* the kernel runs nothing");
  size_t begin = prog.find("span python.gil_wait begins");
  size_t at_return = prog.find("span python.gil_wait ends */");
  ASSERT_NE(entry, std::string::npos) << prog;
  ASSERT_NE(free_test, std::string::npos) << prog;
  ASSERT_NE(early, std::string::npos) << prog;
  ASSERT_NE(skip_return, std::string::npos) << prog;
  ASSERT_NE(begin, std::string::npos) << prog;
  ASSERT_NE(at_return, std::string::npos) << prog;
  EXPECT_LT(entry, free_test);
  EXPECT_LT(free_test, early);
  EXPECT_LT(early, skip_return);
  EXPECT_LT(skip_return, begin);
  EXPECT_LT(begin, at_return);
  const std::string& metric_map = p.metrics.at(0).map;
  size_t early_update = prog.find(metric_map, early);
  EXPECT_LT(early_update, skip_return) << "the histogram counts the call that did not wait";
  EXPECT_NE(prog.find(metric_map, at_return), std::string::npos) << "and the one that waited";
  EXPECT_NE(prog.find("__u64 duration = 0;", early), std::string::npos);
}

TEST(CodegenUprobeSession, WithoutSessionsTheEntryAndReturnProbesStay) {
  Compiled c = compile_text(kGilWait);
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  EXPECT_EQ(attachments_of(p, plan::AttachKind::Uprobe), 1u);
  EXPECT_EQ(attachments_of(p, plan::AttachKind::Uretprobe), 1u);
  EXPECT_TRUE(p.memory_readers.empty());
  for (const plan::Site& s : c.lowered.sites) {
    EXPECT_EQ(s.session_span, -1);
    EXPECT_NE(s.section, plan::kUprobeSessionSection);
  }
  EXPECT_EQ(c.generated.c_source.find("seam_session_is_return"), std::string::npos);
  EXPECT_EQ(c.generated.c_source.find("uprobe.session"), std::string::npos);
}

TEST(CodegenUprobeSession, AThresholdRuleIsExactAtTheEntry) {
  Compiled c =
      compile_text("use python\nrule slow on python.gil_wait where duration > 20ms alert info \"x\"\n", {},
                   with_sessions());
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_EQ(attachments_of(c.lowered.plan, plan::AttachKind::Uretprobe), 0u);
  ASSERT_EQ(c.lowered.sites.size(), 1u);
  EXPECT_EQ(c.lowered.sites[0].section, plan::kUprobeSessionSection);
}

// A session's entry that returns early (another pid or cgroup than --pid/--cgroup ask, seam's own
// thread) returns 1: with 0 the kernel would run the program again at the return.
TEST(CodegenUprobeSession, EarlyReturnsAtTheEntryAskForNoReturnRun) {
  lower::Options options = with_sessions();
  options.target_pid = 4242;
  options.target_cgroup = 77;
  Compiled c = compile_text(kGilWait, {}, options);
  ASSERT_EQ(c.diagnostics, "");
  std::string prog = program_text(c.generated.c_source, c.lowered.plan.attachments.at(0).program);
  ASSERT_NE(prog.find("SEC(\"uprobe.session\")"), std::string::npos) << prog;
  EXPECT_NE(prog.find("if (tgid != seam_target_tgid)\n\t\treturn 1;"), std::string::npos) << prog;
  EXPECT_NE(prog.find("if (bpf_get_current_cgroup_id() != seam_target_cgroup)\n\t\treturn 1;"),
            std::string::npos)
      << prog;
  EXPECT_NE(prog.find("if (tgid == seam_self_tgid)\n\t\treturn 1;"), std::string::npos) << prog;
  size_t entry = prog.find("if (!seam_session_is_return())");
  ASSERT_NE(entry, std::string::npos) << prog;
  EXPECT_EQ(prog.substr(0, entry).find("return 0;"), std::string::npos)
      << "an early return before the entry's test\n"
      << prog;
}

TEST(CodegenUprobeSession, ACountAtTheEntryRunsForEveryCallBeforeTheTest) {
  Compiled c = compile_text(
      "use python\nmetric calls on python.gil_wait count by pid\nmetric waits on python.gil_wait hist "
      "duration by pid\n",
      {}, with_sessions());
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  EXPECT_EQ(attachments_of(p, plan::AttachKind::Uretprobe), 0u);
  ASSERT_EQ(c.lowered.sites.size(), 1u);
  EXPECT_EQ(c.lowered.sites[0].section, plan::kUprobeSessionSection);
  std::string prog = program_text(c.generated.c_source, p.attachments.at(0).program);
  size_t count = prog.find(p.metrics.at(0).map);
  size_t free_test = prog.find("seam_py_gil_free(");
  ASSERT_NE(count, std::string::npos) << prog;
  ASSERT_NE(free_test, std::string::npos) << prog;
  EXPECT_LT(count, free_test) << prog;
}

TEST(CodegenUprobeSession, AStackAtTheEndKeepsTheReturnProbe) {
  // The stack at the return is not the one at the entry's early end: no session.
  Compiled c = compile_text(
      "use python\nrule slow on python.gil_wait where duration > 20ms alert info \"x\" with ustack\n", {},
      with_sessions());
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_EQ(attachments_of(c.lowered.plan, plan::AttachKind::Uretprobe), 1u);
  for (const plan::Site& s : c.lowered.sites) EXPECT_EQ(s.session_span, -1);
}

TEST(CodegenUprobeSession, OtherCallSpansKeepTheirReturnProbes) {
  Compiled c =
      compile_text("use cuda\nmetric t on cuda.stream_sync hist duration by pid\n", {}, with_sessions());
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_EQ(attachments_of(c.lowered.plan, plan::AttachKind::Uretprobe), 1u);
  EXPECT_EQ(c.generated.c_source.find("seam_session_is_return"), std::string::npos);
}

}  // namespace
}  // namespace seam::test
