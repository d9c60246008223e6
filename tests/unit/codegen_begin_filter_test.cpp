// Pay only for what a rule needs: a span's begin stores nothing where no rule on it can match
// (its conjuncts known at the begin run there: compiler/lower/begin_filter.hpp), and a rule that
// names its syscalls runs on their own tracepoints (compiler/lower/syscall_tracepoints.hpp).
// Asserted on the plan and on properties of the generated C, not on its exact text.
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/plan/cond_text.hpp"
#include "support/compile_text.hpp"

namespace seam::test {
namespace {

lower::Options raw_syscalls_only() {  // a kernel with no per-syscall tracepoints
  lower::Options o;
  o.has_tracepoint = [](const std::string& category, const std::string&) { return category != "syscalls"; };
  return o;
}

const plan::Attachment* attachment(const plan::Plan& p, const std::string& category,
                                   const std::string& name) {
  for (const plan::Attachment& a : p.attachments)
    if (a.kind == plan::AttachKind::Tracepoint && a.category == category && a.name == name) return &a;
  return nullptr;
}

// The programs on raw_syscalls that run (a raw tracepoint's perf tracepoint fallback loads only
// where raw tracepoints are missing: codegen_raw_syscalls_test.cpp).
size_t raw_syscalls_attachments(const plan::Plan& p) {
  return static_cast<size_t>(std::count_if(
      p.attachments.begin(), p.attachments.end(),
      [](const plan::Attachment& a) { return a.category == "raw_syscalls" && !a.is_fallback; }));
}

TEST(CodegenBeginFilter, TheSyscallIdIsTestedInTheBeginProgram) {
  Compiled c = compile_text(
      "use syscalls\nrule r on syscalls.any where id == ioctl and duration > 1ms alert info \"x\"\n", {},
      raw_syscalls_only());
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_EQ(c.lowered.spans.size(), 1u);
  const plan::Span& span = c.lowered.spans[0];
  EXPECT_FALSE(span.never);
  // The plan: the begin's condition is the id test alone (duration is only known at the end).
  ASSERT_EQ(span.begin_when.op, plan::CondOp::Eq) << plan::cond_text(span.begin_when);
  EXPECT_EQ(span.begin_when.lhs.kind, plan::ValueKind::TpField);
  EXPECT_EQ(span.begin_when.lhs.name, "id");
  EXPECT_EQ(span.begin_when.rhs.int_value, 16);
  const plan::Attachment* enter = attachment(c.lowered.plan, "raw_syscalls", "sys_enter");
  ASSERT_NE(enter, nullptr);
  EXPECT_EQ(enter->span_begins, std::vector<std::string>{"syscalls.any when id == 16"});
  nlohmann::json layout = c.generated.layout;
  bool shown = false;
  for (const nlohmann::json& a : layout["attachments"])
    shown |=
        a.value("span_begins", nlohmann::json::array()).dump().find("when id == 16") != std::string::npos;
  EXPECT_TRUE(shown) << layout["attachments"].dump();
  // The C: the entry program tests id before it reads the clock or touches the in-flight map.
  std::string prog = program_text(c.generated.c_source, enter->program);
  size_t test = prog.find("ctx->id");
  size_t clock = prog.find("bpf_ktime_get_ns()");
  size_t store =
      prog.find(span.task_local ? "SEAM_TASK_CREATE(" + span.map : "bpf_map_update_elem(&" + span.map);
  ASSERT_NE(test, std::string::npos) << prog;
  ASSERT_NE(clock, std::string::npos) << prog;
  ASSERT_NE(store, std::string::npos) << prog;
  EXPECT_LT(test, clock) << prog;
  EXPECT_LT(test, store) << prog;
  EXPECT_NE(prog.substr(test, 40).find("16LL"), std::string::npos) << prog;
  EXPECT_EQ(prog.find("__u64 now"), std::string::npos) << "no clock read before the filter:\n" << prog;
  // The exit program still tests the whole condition.
  std::string exit =
      program_text(c.generated.c_source, attachment(c.lowered.plan, "raw_syscalls", "sys_exit")->program);
  EXPECT_NE(exit.find("duration"), std::string::npos) << exit;
  EXPECT_NE(exit.find("16LL"), std::string::npos) << exit;
}

TEST(CodegenBeginFilter, SeveralRulesOnASpanStoreWhenAnyOfThemCan) {
  Compiled c = compile_text(
      "use syscalls\n"
      "rule a on syscalls.any where id == ioctl and duration > 1ms alert info \"a\"\n"
      "rule b on syscalls.any where duration > 2ms and args[0] == 3 and pid == 42 alert info \"b\"\n",
      {}, raw_syscalls_only());
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_EQ(c.lowered.spans.size(), 1u);
  EXPECT_EQ(plan::cond_text(c.lowered.spans[0].begin_when), "(id == 16 || (args[0] == 3 && pid == 42))");
  // A rule with nothing known at the begin makes every begin store.
  Compiled any = compile_text(
      "use syscalls\n"
      "rule a on syscalls.any where id == ioctl and duration > 1ms alert info \"a\"\n"
      "rule c on syscalls.any where duration > 5ms alert info \"c\"\n",
      {}, raw_syscalls_only());
  ASSERT_EQ(any.diagnostics, "");
  EXPECT_EQ(any.lowered.spans.at(0).begin_when.op, plan::CondOp::True);
  const plan::Attachment* enter = attachment(any.lowered.plan, "raw_syscalls", "sys_enter");
  ASSERT_NE(enter, nullptr);
  EXPECT_EQ(enter->span_begins, std::vector<std::string>{"syscalls.any always"});
  std::string prog = program_text(any.generated.c_source, enter->program);
  EXPECT_EQ(prog.find("begin-time filter"), std::string::npos) << prog;
  EXPECT_NE(
      program_text(c.generated.c_source, attachment(c.lowered.plan, "raw_syscalls", "sys_enter")->program)
          .find("begin-time filter"),
      std::string::npos);
}

TEST(CodegenBeginFilter, MetricsCountAsReadersAndWhatIsKnownOnlyAtTheEndStaysThere) {
  // A metric's where joins the rules'; `not in` is a begin-time test like any other.
  Compiled c = compile_text(
      "use syscalls\n"
      "list waits = (futex, poll)\n"
      "metric m on syscalls.any where id not in waits and ret < 0 hist duration by pid\n"
      "rule r on syscalls.any where comm == \"python3\" and duration > 1ms alert info \"x\"\n",
      {}, raw_syscalls_only());
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_EQ(c.lowered.spans.size(), 1u);
  std::string text = plan::cond_text(c.lowered.spans[0].begin_when);
  EXPECT_NE(text.find("!((id == 202 || id == 7))"), std::string::npos) << text;
  EXPECT_NE(text.find("comm == \"python3\""), std::string::npos) << text;
  EXPECT_EQ(text.find("ret"), std::string::npos) << text;
  EXPECT_EQ(text.find("duration"), std::string::npos) << text;
}

TEST(CodegenBeginFilter, StatesCorrelationsAndFdNamesAreNotMovedToTheBegin) {
  Compiled c = compile_text(
      "use nvidia\n"
      "rule r on nvidia.ioctl_call where duration > 1ms and fd_is(fd, \"nvidia*\") alert info \"x\"\n");
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_EQ(c.lowered.spans.size(), 1u);
  EXPECT_EQ(c.lowered.spans[0].begin_when.op, plan::CondOp::True)
      << plan::cond_text(c.lowered.spans[0].begin_when);
  // cmd_type is computed from the command, an argument: known at the entry.
  Compiled cmd = compile_text(
      "use nvidia\n"
      "rule r on nvidia.ioctl_call where duration > 1ms and cmd_type == 0x46 and fd_is(fd, \"nvidia*\")"
      " alert info \"x\"\n");
  ASSERT_EQ(cmd.diagnostics, "");
  std::string text = plan::cond_text(cmd.lowered.spans.at(0).begin_when);
  EXPECT_NE(text.find("== 70"), std::string::npos) << text;
  EXPECT_EQ(text.find("fd_is"), std::string::npos) << text;
  EXPECT_NE(
      program_text(cmd.generated.c_source, cmd.lowered.plan.attachments.at(0).program).find("PT_REGS_PARM2"),
      std::string::npos);
}

TEST(CodegenBeginFilter, PendingAndAfterNeedEveryBegin) {
  Compiled pending = compile_text(
      "use syscalls\nrule r on syscalls.any where pending > 10s alert info \"x\"\n"
      "rule s on syscalls.any where id == ioctl and duration > 1ms alert info \"y\"\n",
      {}, raw_syscalls_only());
  ASSERT_EQ(pending.diagnostics, "");
  ASSERT_EQ(pending.lowered.spans.size(), 1u);
  EXPECT_EQ(pending.lowered.spans[0].map, pending.lowered.plan.rules.at(0).pending_map);
  EXPECT_EQ(pending.lowered.spans[0].begin_when.op, plan::CondOp::True);
  // `after` marks every completion of its event, whatever the rules on it test.
  Compiled after = compile_text(
      "use syscalls\n"
      "rule r on syscalls.futex where duration > 1ms after syscalls.any within 1ms alert info \"x\"\n"
      "rule s on syscalls.any where id == ioctl and duration > 1ms alert info \"y\"\n",
      {}, raw_syscalls_only());
  ASSERT_EQ(after.diagnostics, "");
  bool found = false;
  for (const plan::Span& s : after.lowered.spans)
    if (s.name == "syscalls.any") {
      found = true;
      EXPECT_EQ(s.begin_when.op, plan::CondOp::True) << plan::cond_text(s.begin_when);
    }
  EXPECT_TRUE(found);
}

TEST(CodegenPerSyscall, ARuleNamingItsSyscallRunsOnItsOwnTracepoints) {
  Compiled c = compile_text(
      "use syscalls\nrule r on syscalls.any where id == ioctl and duration > 1ms alert info \"{id}\" with "
      "id, ret\n");
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  EXPECT_EQ(raw_syscalls_attachments(p), 0u);
  const plan::Attachment* enter = attachment(p, "syscalls", "sys_enter_ioctl");
  const plan::Attachment* exit = attachment(p, "syscalls", "sys_exit_ioctl");
  ASSERT_NE(enter, nullptr);
  ASSERT_NE(exit, nullptr);
  EXPECT_EQ(enter->rules, std::vector<uint32_t>{0});
  ASSERT_EQ(enter->span_begins.size(), 1u);
  EXPECT_EQ(enter->span_begins[0].rfind("syscalls.any (ioctl) when id == 16", 0), 0u)
      << enter->span_begins[0];
  const std::string& src = c.generated.c_source;
  EXPECT_NE(src.find("SEC(\"tracepoint/syscalls/sys_enter_ioctl\")"), std::string::npos) << src;
  EXPECT_NE(src.find("struct seam_sys_enter {"), std::string::npos) << src;
  EXPECT_NE(program_text(src, enter->program).find("(struct seam_sys_enter *ctx)"), std::string::npos);
  EXPECT_NE(program_text(src, exit->program).find("ctx->ret"), std::string::npos);
  // seam's own record types: nothing for the kernel's BTF or the format files to provide.
  for (const std::string& t : c.lowered.kernel_types) EXPECT_EQ(t.find("sys_enter"), std::string::npos) << t;
}

TEST(CodegenPerSyscall, SeveralSyscallsEachGetTheirTracepoints) {
  for (const char* where : {"id in (futex, poll)", "(id == futex or id == poll) and duration > 1ms",
                            "id in (futex, poll, read) and id != read and id in (poll, futex)"}) {
    Compiled c = compile_text(std::string("use syscalls\nrule r on syscalls.any where ") + where +
                              " alert info \"x\"\n");
    ASSERT_EQ(c.diagnostics, "") << where;
    const plan::Plan& p = c.lowered.plan;
    EXPECT_EQ(raw_syscalls_attachments(p), 0u) << where;
    for (const char* tp : {"sys_enter_futex", "sys_exit_futex", "sys_enter_poll", "sys_exit_poll"})
      EXPECT_NE(attachment(p, "syscalls", tp), nullptr) << where << ": " << tp;
    EXPECT_EQ(attachment(p, "syscalls", "sys_enter_read"), nullptr) << where;
    EXPECT_EQ(c.lowered.spans.size(), 1u) << where;
  }
}

TEST(CodegenPerSyscall, RawSyscallsWhereTheRuleDoesNotNameFewSyscallsOrATracepointIsMissing) {
  struct Case {
    const char* where;
    lower::Options options;
  };
  lower::Options no_poll;
  no_poll.has_tracepoint = [](const std::string&, const std::string& name) {
    return name != "sys_exit_poll";
  };
  for (const Case& k : {Case{"id not in (futex, poll)", {}}, Case{"id == futex or pid == 1", {}},
                        Case{"id in (read, write, open, close, stat, fstat, lstat, poll, lseek)", {}},
                        Case{"id in (futex, poll)", no_poll}, Case{"args[0] == 16", {}}}) {
    Compiled c = compile_text(
        std::string("use syscalls\nrule r on syscalls.any where ") + k.where + " alert info \"x\"\n", {},
        k.options);
    ASSERT_EQ(c.diagnostics, "") << k.where;
    EXPECT_EQ(raw_syscalls_attachments(c.lowered.plan), 2u) << k.where;
    EXPECT_EQ(c.generated.c_source.find("seam_sys_enter"), std::string::npos) << k.where;
  }
}

TEST(CodegenPerSyscall, RulesNamingTheSameSyscallsShareOneSpanAndOthersKeepRawSyscalls) {
  Compiled c = compile_text(
      "use syscalls\n"
      "metric sends on syscalls.any where id == sendto or id == sendmsg hist duration by cgroup\n"
      "rule a on syscalls.any where (id == sendto or id == sendmsg) and duration > 1s alert info \"a\"\n"
      "rule b on syscalls.any where duration > 1ms and id not in (futex, sendto) alert info \"b\"\n");
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  EXPECT_EQ(c.lowered.spans.size(), 2u);
  EXPECT_EQ(raw_syscalls_attachments(p), 2u);
  const plan::Attachment* sendto = attachment(p, "syscalls", "sys_enter_sendto");
  ASSERT_NE(sendto, nullptr);
  EXPECT_EQ(sendto->rules, std::vector<uint32_t>{0});
  // The metric and the rule test the same at the begin: once.
  EXPECT_EQ(sendto->span_begins,
            std::vector<std::string>{"syscalls.any (sendto, sendmsg) when (id == 44 || id == 46)"});
  // Only rule b reads the raw_syscalls span, and only its begin test guards it.
  const plan::Attachment* raw = attachment(p, "raw_syscalls", "sys_enter");
  ASSERT_NE(raw, nullptr);
  EXPECT_EQ(raw->rules, std::vector<uint32_t>{1});
  ASSERT_EQ(raw->span_begins.size(), 1u);
  EXPECT_NE(raw->span_begins[0].find("!((id == 202 || id == 44))"), std::string::npos) << raw->span_begins[0];
}

TEST(CodegenPerSyscall, ThePointAtEntryToo) {
  Compiled c = compile_text("use syscalls\nmetric n on syscalls.enter where id == futex count by pid\n");
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_EQ(raw_syscalls_attachments(c.lowered.plan), 0u);
  EXPECT_NE(attachment(c.lowered.plan, "syscalls", "sys_enter_futex"), nullptr);
  EXPECT_EQ(attachment(c.lowered.plan, "syscalls", "sys_exit_futex"), nullptr);
}

}  // namespace
}  // namespace seam::test
