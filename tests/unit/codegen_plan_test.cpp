// Lowering and generation, checked by properties of the plan and of the generated C (which
// probes, which maps, where each filter runs), not by byte-exact golden files.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

const plan::Attachment* find_attachment(const plan::Plan& p, plan::AttachKind kind,
                                        const std::string& symbol) {
  for (const plan::Attachment& a : p.attachments)
    if (a.kind == kind && std::find(a.symbols.begin(), a.symbols.end(), symbol) != a.symbols.end()) return &a;
  return nullptr;
}

bool has_map(const plan::Plan& p, plan::MapType type, const std::string& purpose_part) {
  return std::any_of(p.maps.begin(), p.maps.end(), [&](const plan::Map& m) {
    // Task storage holds one value per thread: the kernel requires max_entries 0.
    return m.type == type && m.purpose.find(purpose_part) != std::string::npos &&
           (m.max_entries > 0) == (type != plan::MapType::TaskStorage);
  });
}

TEST(CodegenPlan, HeadlineRuleFiltersInTheKernelAtTheSyncsReturn) {
  Compiled c = compile_text(
      "use cuda, python\ncudaStreamSynchronize > 10ms while gil_held -> alert with ustack limit 10 per 1m\n");
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  // One entry and one return program on cudart, each attached to both names of the call.
  const plan::Attachment* entry = find_attachment(p, plan::AttachKind::Uprobe, "cudaStreamSynchronize");
  const plan::Attachment* ret = find_attachment(p, plan::AttachKind::Uretprobe, "cudaStreamSynchronize");
  ASSERT_NE(entry, nullptr);
  ASSERT_NE(ret, nullptr);
  EXPECT_EQ(entry->symbols,
            (std::vector<std::string>{"cudaStreamSynchronize", "cudaStreamSynchronize_ptsz"}));
  EXPECT_EQ(p.libraries.at(static_cast<size_t>(entry->library)).name, "cudart");
  // The GIL is read from the interpreter's memory: nothing is probed on libpython, and the
  // runtime fills the per-process map the kernel reads it through.
  for (const plan::Attachment& a : p.attachments) {
    if (a.library >= 0) {
      EXPECT_NE(p.libraries.at(static_cast<size_t>(a.library)).name, "libpython") << a.program;
    }
  }
  ASSERT_EQ(p.memory_readers.size(), 1u);
  EXPECT_EQ(p.memory_readers[0].reader, "cpython_gil");
  EXPECT_EQ(p.memory_readers[0].state, "python.gil_held");
  EXPECT_EQ(p.libraries.at(static_cast<size_t>(p.memory_readers[0].library)).name, "libpython");
  EXPECT_TRUE(has_map(p, plan::MapType::Hash, "processes python.gil_held is read in"));
  // The span is per thread: task-local storage (lower::Options::task_storage defaults to true).
  EXPECT_TRUE(has_map(p, plan::MapType::TaskStorage, "span cuda.stream_sync in flight"));
  // The rule's record: the header, the duration and a user stack (frame pointers, then the
  // stack copy for unwinding with call-frame information: codegen_ustack_copy_test.cpp).
  ASSERT_EQ(p.records.size(), 1u);
  const plan::Record& r = p.records[0];
  ASSERT_EQ(r.fields.size(), 3u);
  EXPECT_EQ(r.fields[0].name, "duration");
  EXPECT_EQ(r.fields[0].unit, plan::FieldUnit::Ns);
  EXPECT_EQ(r.fields[0].offset, plan::kRecordHeaderSize);
  EXPECT_EQ(r.fields[1].type, plan::FieldType::UStack);
  EXPECT_EQ(r.size % 8, 0u);
  EXPECT_EQ(p.rules[0].limit_count, 10);
  // The filter and the state test are in the return program; the entry program only records.
  std::string at_return = program_text(c.generated.c_source, ret->program);
  std::string at_entry = program_text(c.generated.c_source, entry->program);
  EXPECT_NE(at_return.find("SEC(\"uretprobe\")"), std::string::npos);
  EXPECT_NE(at_return.find("duration > (__u64)(10000000LL)"), std::string::npos) << at_return;
  EXPECT_NE(at_return.find("seam_py_gil_held(&" + p.memory_readers[0].map + ", tgid)"), std::string::npos)
      << at_return;
  EXPECT_NE(at_return.find("seam_reserve(0U"), std::string::npos);
  EXPECT_EQ(at_entry.find("seam_reserve"), std::string::npos) << at_entry;
  ASSERT_EQ(c.lowered.spans.size(), 1u);
  EXPECT_NE(at_entry.find("SEAM_TASK_CREATE(" + c.lowered.spans[0].map + ")"), std::string::npos) << at_entry;
  EXPECT_EQ(at_entry.find("bpf_map_update_elem"), std::string::npos) << at_entry;
  // The layout document is the plan the runtime decodes with.
  plan::Plan back = c.generated.layout.get<plan::Plan>();
  EXPECT_EQ(back.records[0].fields[1].name, "ustack");
  EXPECT_EQ(back.attachments.size(), p.attachments.size());
}

TEST(CodegenPlan, CorrelationMarksTheEarlierEventAndTestsItsAge) {
  Compiled c = compile_text(
      "use cuda\n"
      "rule malloc_before_stall\n"
      "    on cuda.stream_sync where duration > 100ms after cuda.malloc within 50ms\n"
      "    alert warning \"stall {duration} right after a cudaMalloc of {cuda.malloc.size}\"\n");
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_EQ(c.lowered.correlations.size(), 1u);
  EXPECT_EQ(c.lowered.correlations[0].saves.size(), 1u);  // the malloc's size, saved for the message
  EXPECT_TRUE(has_map(c.lowered.plan, plan::MapType::TaskStorage, "last cuda.malloc per thread"));
  const plan::Attachment* malloc_ret =
      find_attachment(c.lowered.plan, plan::AttachKind::Uretprobe, "cudaMalloc");
  ASSERT_NE(malloc_ret, nullptr);
  std::string mark = program_text(c.generated.c_source, malloc_ret->program);
  EXPECT_NE(mark.find("c->ts = now"), std::string::npos) << mark;
  const plan::Record& r = c.lowered.plan.records.at(0);
  EXPECT_TRUE(std::any_of(r.fields.begin(), r.fields.end(), [](const plan::Field& f) {
    return f.name == "cuda.malloc.size" && f.unit == plan::FieldUnit::Bytes;
  }));
  EXPECT_NE(c.generated.c_source.find("50000000ULL"), std::string::npos);
}

TEST(CodegenPlan, BeginEndPairsKeyEachEndByItsOwnField) {
  Compiled c = compile_text(
      "use sched\n"
      "rule long_offcpu on sched.offcpu where duration > 1s and comm startswith \"python\"\n"
      "    alert info \"off cpu for {duration}\"\n");
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  ASSERT_EQ(p.attachments.size(), 1u);  // begin and end are the same tracepoint: one program
  EXPECT_EQ(p.attachments[0].kind, plan::AttachKind::Tracepoint);
  EXPECT_EQ(p.attachments[0].category, "sched");
  std::string prog = program_text(c.generated.c_source, p.attachments[0].program);
  EXPECT_NE(prog.find("ctx->prev_pid"), std::string::npos) << prog;
  EXPECT_NE(prog.find("ctx->next_pid"), std::string::npos);
  // The end runs on the thread leaving the CPU: comm is the one saved at the switch-out.
  EXPECT_NE(prog.find("__builtin_memcpy(_n, &sv->s[2], 16); seam_buf_match(_n, \"python\", 6, 1)"),
            std::string::npos)
      << prog;
  EXPECT_NE(prog.find("bpf_get_current_comm(&v.s[2], 16)"), std::string::npos) << prog;
  EXPECT_NE(
      std::find(c.lowered.kernel_types.begin(), c.lowered.kernel_types.end(), "trace_event_raw_sched_switch"),
      c.lowered.kernel_types.end());
}

TEST(CodegenPlan, RulesOnOneProbeShareItsPrograms) {
  Compiled c = compile_text(
      "use cuda\n"
      "rule slow on cuda.malloc where duration > 100us alert warning \"slow {size}\"\n"
      "rule big on cuda.malloc where size >= 1GiB alert info \"big {size}\"\n");
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_EQ(c.lowered.plan.attachments.size(), 2u);   // entry and return, not two of each
  EXPECT_EQ(c.lowered.spans.at(0).saves.size(), 1u);  // `size` saved once at entry for both
  EXPECT_EQ(c.lowered.plan.rules.size(), 2u);
  EXPECT_EQ(c.lowered.plan.records.size(), 2u);
}

// --pid's process is a constant the loader sets (plan::Plan::target_tgid), not text of the C: a run
// for another process builds the same C, and finds the object an earlier run built.
TEST(CodegenPlan, PidFilterGoesIntoEveryProgramWithThePidInThePlan) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"rules.seam", "use cuda\nrule m on cuda.malloc alert info \"m\"\n"}};
  TempDir dir;  // one place for the three compiles: the file's path is in the C
  lower::Options options;
  options.target_pid = 4242;
  Compiled c = compile_files_in(dir, files, {}, options);
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_EQ(c.lowered.plan.target_tgid, 4242u);
  for (const plan::Attachment& a : c.lowered.plan.attachments)
    EXPECT_NE(program_text(c.generated.c_source, a.program).find("if (tgid != seam_target_tgid)"),
              std::string::npos);
  EXPECT_EQ(c.generated.c_source.find("4242"), std::string::npos) << c.generated.c_source;
  options.target_pid = 77;
  Compiled other = compile_files_in(dir, files, {}, options);
  EXPECT_EQ(other.lowered.plan.target_tgid, 77u);
  EXPECT_EQ(other.generated.c_source, c.generated.c_source);
  Compiled any = compile_files_in(dir, files);
  EXPECT_EQ(any.lowered.plan.target_tgid, 0u);
  EXPECT_EQ(any.generated.c_source.find("tgid != seam_target_tgid"), std::string::npos);
}

TEST(CodegenPlan, HostileRuleTextStaysInert) {
  // Quotes, backslashes, comment ends, preprocessor lines, newlines and format directives in
  // every place a rule can hold text: none may reach the C except as escaped constants.
  Compiled c = compile_text(
      "use cuda\n"
      "rule hostile on cuda.malloc where comm == \"a\\\"b*/ #include <x>\\n%s\\\\\"\n"
      "    alert warning \"*/ #include </etc/passwd> \\\" %n {size}\"\n");
  ASSERT_EQ(c.diagnostics, "");
  const std::string& src = c.generated.c_source;
  EXPECT_EQ(src.find("#include <x>"), std::string::npos);
  EXPECT_EQ(src.find("passwd"), std::string::npos);  // messages stay in user space
  EXPECT_EQ(src.find("%n"), std::string::npos);
  EXPECT_EQ(src.find("%s"), std::string::npos);
  // A task name has at most 15 bytes: the constant is cut at 16, which can never match.
  EXPECT_NE(src.find("seam_comm_match(\"a\\042b\\052/ \\043include \\074\", 16, 0)"), std::string::npos)
      << src;
  // The message is in the layout, for user space to render.
  EXPECT_EQ(c.lowered.plan.rules[0].message[0].text, "*/ #include </etc/passwd> \" %n ");
}

TEST(CodegenPlan, RuleTextNamesTheRuleFileForClangErrors) {
  Compiled c = compile_text("use cuda\n\nrule m on cuda.malloc alert info \"m\"\n");
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_NE(c.generated.c_source.find("#line 3 \"" + c.dir->path() + "/rules.seam\""), std::string::npos)
      << c.generated.c_source;
  EXPECT_NE(c.generated.c_source.find("#line "), std::string::npos);
}

// Message holes and `with` items reach the plan resolved: a field of the rule's record by index
// (what the runtime prints, without looking the name up again), or a header value.
TEST(CodegenPlan, MessageHolesAndWithItemsAreResolvedToRecordFieldsOrHeaderValues) {
  Compiled c = compile_text(
      "use mem\nrule faults on mem.page_fault where address > 4096 "
      "alert \"fault at {ip} by {comm} ({pid}) in {cgroup}\" with error_code, cgroup, tid\n");
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  ASSERT_EQ(p.rules.size(), 1u);
  ASSERT_EQ(p.records.size(), 1u);
  const plan::Record& record = p.records[0];
  auto field_named = [&](const std::string& name) {
    for (size_t i = 0; i < record.fields.size(); ++i)
      if (record.fields[i].name == name) return static_cast<int>(i);
    return -1;
  };
  const std::vector<plan::MessagePart>& m = p.rules[0].message;
  ASSERT_EQ(m.size(), 8u);
  EXPECT_FALSE(m[0].is_field);
  EXPECT_EQ(m[0].ref.field, -1);
  EXPECT_EQ(m[1].text, "ip");
  EXPECT_GE(m[1].ref.field, 0);
  EXPECT_EQ(m[1].ref.field, field_named("ip"));
  EXPECT_EQ(m[3].ref.field, -1);  // comm, pid and cgroup are in every record's header
  EXPECT_EQ(m[3].ref.header, plan::HeaderValue::Comm);
  EXPECT_EQ(m[5].ref.header, plan::HeaderValue::Pid);
  EXPECT_EQ(m[7].ref.header, plan::HeaderValue::Cgroup);
  const std::vector<plan::WithItem>& with = p.rules[0].with;
  ASSERT_EQ(with.size(), 3u);
  EXPECT_EQ(with[0].name, "error_code");
  EXPECT_GE(with[0].ref.field, 0);
  EXPECT_EQ(with[0].ref.field, field_named("error_code"));
  EXPECT_EQ(with[1].ref.header, plan::HeaderValue::Cgroup);
  EXPECT_EQ(with[2].ref.header, plan::HeaderValue::Tid);
  EXPECT_EQ(field_named("cgroup"), -1);
}

}  // namespace
}  // namespace seam::test
