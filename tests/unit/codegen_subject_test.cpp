// Spans keyed by a thread field are about that thread (compiler/codegen/subject.hpp): the
// off-CPU end (key next_pid) and runq's end run unfiltered, runq's begin (key pid, in the
// waker's context) is tested on the woken thread, and every other action keeps the current
// task's filters.
#include <gtest/gtest.h>

#include "compiler/codegen/subject.hpp"
#include "support/compile_text.hpp"

namespace seam::test {
namespace {

std::string sched_program(const Compiled& c, const std::string& tracepoint) {
  for (const plan::Attachment& a : c.lowered.plan.attachments)
    if (a.name == tracepoint) return program_text(c.generated.c_source, a.program);
  return {};
}

TEST(CodegenSubject, ThreadKeysAreRecognisedByName) {
  plan::Value v;
  v.kind = plan::ValueKind::TpField;
  for (const char* n : {"pid", "prev_pid", "next_pid"}) {
    v.name = n;
    EXPECT_TRUE(codegen::names_a_thread(v)) << n;
  }
  for (const char* n : {"id", "rapid", "_pid", "pid_ns"}) {
    v.name = n;
    EXPECT_FALSE(codegen::names_a_thread(v)) << n;
  }
  v.kind = plan::ValueKind::Arg;
  v.name = "pid";
  EXPECT_FALSE(codegen::names_a_thread(v));
}

TEST(CodegenSubject, SchedSpansTestTheKeyedThread) {
  lower::Options options;
  options.target_pid = 4242;
  Compiled c = compile_text(
      "use sched\n"
      "rule off on sched.offcpu where duration > 1ms alert info \"off {duration}\"\n"
      "rule rq on sched.runq where duration > 1ms alert info \"rq {duration}\"\n",
      {}, options);
  ASSERT_EQ(c.diagnostics, "");
  std::string sw = sched_program(c, "sched_switch");
  ASSERT_FALSE(sw.empty()) << c.generated.c_source;
  // No early return on the current task: seam's and the target's threads are noted instead.
  EXPECT_EQ(sw.find("if (tgid == seam_self_tgid)"), std::string::npos) << sw;
  EXPECT_NE(sw.find("seam_note_thread(tid, tgid);"), std::string::npos) << sw;
  EXPECT_NE(sw.find("int seam_current_ok = tgid != seam_self_tgid && tgid == seam_target_tgid;"),
            std::string::npos)
      << sw;
  // offcpu begins on prev_pid, tested as the keyed thread (the current one there).
  EXPECT_NE(sw.find("if (seam_subject_ok((__u32)((__s64)(__s32)(ctx->prev_pid)), tid, seam_current_ok)) {"),
            std::string::npos)
      << sw;
  // The ends (next_pid) are not wrapped in any test.
  EXPECT_EQ(sw.find("ctx->next_pid)), tid, seam_current_ok"), std::string::npos) << sw;
  std::string waking = sched_program(c, "sched_waking");
  EXPECT_NE(waking.find("if (seam_subject_ok((__u32)((__s64)(__s32)(ctx->pid)), tid, seam_current_ok)) {"),
            std::string::npos)
      << waking;
  // runq also begins at a new thread's first wakeup.
  EXPECT_NE(sched_program(c, "sched_wakeup_new").find("seam_subject_ok((__u32)((__s64)(__s32)(ctx->pid))"),
            std::string::npos)
      << c.generated.c_source;
  // Under --pid the keyed thread must be known as the target's.
  EXPECT_NE(c.generated.c_source.find("return tgid && *tgid == seam_target_tgid;"), std::string::npos);
}

TEST(CodegenSubject, OtherProgramsKeepTheCurrentTaskFilter) {
  Compiled c = compile_text("use cuda\nrule r on cuda.stream_sync where duration > 1ms alert info \"x\"\n");
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_NE(c.generated.c_source.find("\tif (tgid == seam_self_tgid)\n\t\treturn 0;\n"), std::string::npos);
  EXPECT_EQ(c.generated.c_source.find("seam_note_thread"), std::string::npos);
}

}  // namespace
}  // namespace seam::test
