// Arithmetic, array elements, tables, computed fields, fd_is and the begin thread of keyed spans,
// checked in the plan and in the generated C.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

std::string only_program(const Compiled& c, plan::AttachKind kind) {
  for (const plan::Attachment& a : c.lowered.plan.attachments)
    if (a.kind == kind) return program_text(c.generated.c_source, a.program);
  return {};
}

TEST(CodegenExprs, ArithmeticBindsTighterThanComparisonAndMasksShifts) {
  Compiled c = compile_text(
      "use nvidia\n"
      "rule r on nvidia.ioctl_call where (cmd >> 8) & 0xff == 0x46 and cmd % 3 + 1 > 1 alert info \"x\"\n");
  ASSERT_EQ(c.diagnostics, "");
  std::string ret = only_program(c, plan::AttachKind::Uretprobe);
  EXPECT_NE(ret.find(">> ((__u64)(8LL) & 63)) & (__u64)(255LL)) == (__u64)(70LL)"), std::string::npos) << ret;
  EXPECT_NE(ret.find("% (__u64)(3LL)"), std::string::npos) << ret;
}

TEST(CodegenExprs, ComputedFieldsAndTablesExpandWhereTheyAreRead) {
  Compiled c =
      compile_text("use nccl\nrule big on nccl.all_reduce where bytes > 1MiB alert info \"{bytes}\"\n");
  ASSERT_EQ(c.diagnostics, "");
  std::string ret = only_program(c, plan::AttachKind::Uretprobe);
  // count (argument 2) times the size of datatype (argument 3), both saved at the entry.
  EXPECT_NE(ret.find("({ __u64 _t = (__u64)((__s64)(__s32)(sv->s[1])); (__u64)(_t == 0ULL ? (__u64)(1LL) : "
                     "_t == 1ULL ? (__u64)(1LL) : _t == 2ULL ? (__u64)(4LL)"),
            std::string::npos)
      << ret;
  std::string entry = only_program(c, plan::AttachKind::Uprobe);
  EXPECT_NE(entry.find("v->s[0] = (__u64)((__u64)(__u64)(PT_REGS_PARM3(ctx)))"), std::string::npos) << entry;
  EXPECT_NE(entry.find("v->s[1] = (__u64)((__s64)(__s32)(PT_REGS_PARM4(ctx)))"), std::string::npos) << entry;
  const plan::Record& r = c.lowered.plan.records.at(0);
  ASSERT_EQ(r.fields.size(), 2u);
  EXPECT_EQ(r.fields[1].name, "bytes");
  EXPECT_EQ(r.fields[1].unit, plan::FieldUnit::Bytes);
}

TEST(CodegenExprs, ArrayElementsOfATracepointAreReadAtTheBeginAndSaved) {
  Compiled c = compile_text(
      "use syscalls\nrule r on syscalls.any where id == 16 and args[1] == 0x541B alert info \"x\"\n");
  ASSERT_EQ(c.diagnostics, "");
  std::string prog = only_program(c, plan::AttachKind::Tracepoint);
  EXPECT_NE(c.generated.c_source.find("v->s[1] = (__u64)((__u64)(__u64)(ctx->args[1]));"), std::string::npos)
      << c.generated.c_source;
}

TEST(CodegenExprs, FdIsIncludesTheHelperAndTheKernelTypesItReads) {
  Compiled c =
      compile_text("use nvidia\nrule r on nvidia.ioctl_call where fd_is(fd, \"nvidia*\") alert info \"x\"\n");
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_NE(c.generated.c_source.find("#include \"seam_fd.h\""), std::string::npos);
  EXPECT_NE(c.generated.c_source.find("seam_fd_name_match(((__s64)(__s32)(sv->s[0])), \"nvidia\", 6, 1)"),
            std::string::npos)
      << c.generated.c_source;
  for (const char* t : {"struct task_struct", "struct fdtable", "struct file", "struct dentry"})
    EXPECT_NE(std::find(c.lowered.kernel_types.begin(), c.lowered.kernel_types.end(), t),
              c.lowered.kernel_types.end())
        << t;
  Compiled plain = compile_text("use nvidia\nrule r on nvidia.ioctl_call where fd == 3 alert info \"x\"\n");
  EXPECT_EQ(plain.generated.c_source.find("seam_fd.h"), std::string::npos);
}

TEST(CodegenExprs, KeyedPairsReportTheThreadThatBeganThem) {
  Compiled c = compile_text(
      "use sched\n"
      "metric off on sched.offcpu where prev_state == 0 and comm startswith \"py\" hist duration by pid, "
      "comm\n"
      "rule r on sched.offcpu where duration > 1ms and pid == 7 alert info \"x\" with tid\n");
  ASSERT_EQ(c.diagnostics, "");
  std::string prog = only_program(c, plan::AttachKind::Tracepoint);
  // Saved at the switch-out after prev_state (slot 0): pid_tgid, cgroup and comm.
  EXPECT_NE(prog.find("v.s[1] = (__u64)pid_tgid;"), std::string::npos) << prog;
  EXPECT_NE(prog.find("v.s[2] = (__u64)bpf_get_current_cgroup_id();"), std::string::npos) << prog;
  EXPECT_NE(prog.find("bpf_get_current_comm(&v.s[3], 16);"), std::string::npos) << prog;
  // Read back at the switch-in, for the condition, the metric's labels and the record's header.
  EXPECT_NE(prog.find("(sv->s[1] >> 32) == (__u64)(7LL)"), std::string::npos) << prog;
  EXPECT_NE(prog.find("__builtin_memcpy(k.l1, &sv->s[3], 16);"), std::string::npos) << prog;
  EXPECT_NE(prog.find("h->tid = (__u32)sv->s[1];"), std::string::npos) << prog;
  // A call span runs on one thread: nothing is saved for it.
  Compiled call = compile_text("use cuda\nrule r on cuda.malloc where pid == 7 alert info \"x\"\n");
  EXPECT_EQ(call.generated.c_source.find("pid_tgid;\n\t\tbpf_map_update"), std::string::npos);
  EXPECT_EQ(call.generated.c_source.find("h->pid ="), std::string::npos);
}

TEST(CodegenExprs, NamesFromATracepointAreComparedAndCarriedAs16Bytes) {
  Compiled c = compile_text(
      "use sched\n"
      "metric woken on sched.runq where next_comm startswith \"py\" hist duration by next_comm\n"
      "rule r on sched.runq where next_comm == \"python3\" alert info \"{next_comm}\"\n");
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_NE(c.generated.c_source.find(
                "bpf_probe_read_kernel(_n, 16, &ctx->next_comm); seam_buf_match(_n, \"python3\", 7, 0)"),
            std::string::npos)
      << c.generated.c_source;
  EXPECT_NE(c.generated.c_source.find("bpf_probe_read_kernel(k.l0, 16, &ctx->next_comm);"),
            std::string::npos);
  const plan::Record& r = c.lowered.plan.records.at(0);
  ASSERT_EQ(r.fields.size(), 2u);
  EXPECT_EQ(r.fields[1].type, plan::FieldType::Str);
  EXPECT_EQ(r.fields[1].size, 16u);
  EXPECT_NE(c.generated.c_source.find("bpf_probe_read_kernel(rec + " + std::to_string(r.fields[1].offset) +
                                      ", 16, &ctx->next_comm);"),
            std::string::npos);
  EXPECT_EQ(c.lowered.plan.metrics.at(0).labels.at(0).size, 16u);
}

}  // namespace
}  // namespace seam::test
