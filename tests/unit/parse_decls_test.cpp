// Declarations other than rules: every field of the AST they build.
#include "unit/parse_test_util.hpp"

namespace seam::parse::test {
namespace {

TEST(ParseDecls, ModuleUseAndModuleNameOnDeclarations) {
  auto p = parse(
      "# CUDA runtime events\nmodule cuda\nspan s = cudart:f\npoint q = cudart:g\nalias a = s\n"
      "state st per process\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& m = p->only<ast::ModuleDecl>();
  EXPECT_EQ(m.name.name, "cuda");
  EXPECT_EQ(m.doc, "CUDA runtime events");
  ASSERT_NE(p->file.module(), nullptr);
  EXPECT_EQ(p->file.module()->name.name, "cuda");
  for (const auto* e : p->all<ast::EventDecl>()) EXPECT_EQ(e->module, "cuda");
  EXPECT_EQ(p->only<ast::AliasDecl>().module, "cuda");
  EXPECT_EQ(p->only<ast::StateDecl>().module, "cuda");

  auto u = parse("use cuda, python ,sched");
  ASSERT_FALSE(u->diags.has_errors()) << u->dump();
  const auto& use = u->only<ast::UseDecl>();
  ASSERT_EQ(use.modules.size(), 3u);
  EXPECT_EQ(use.modules[0].name, "cuda");
  EXPECT_EQ(use.modules[2].name, "sched");
  EXPECT_EQ(use.range.text(), "use cuda, python ,sched");
  EXPECT_EQ(u->file.module(), nullptr);
}

TEST(ParseDecls, RuleFilesHaveNoModuleName) {
  auto p = parse("span s = lib:f\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  EXPECT_EQ(p->only<ast::EventDecl>().module, "");
}

TEST(ParseDecls, LibraryPatterns) {
  auto p = parse("module python\nlibrary libpython = \"libpython3*.so*\" | exe \"python3*\"\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& lib = p->only<ast::LibraryDecl>();
  EXPECT_EQ(lib.name.name, "libpython");
  ASSERT_EQ(lib.patterns.size(), 2u);
  EXPECT_FALSE(lib.patterns[0].executable);
  EXPECT_EQ(lib.patterns[0].glob, "libpython3*.so*");
  EXPECT_EQ(lib.patterns[0].range.text(), "\"libpython3*.so*\"");
  EXPECT_TRUE(lib.patterns[1].executable);
  EXPECT_EQ(lib.patterns[1].glob, "python3*");
  EXPECT_EQ(lib.patterns[1].range.text(), "exe \"python3*\"");
}

TEST(ParseDecls, CallSpanWithAlternativesArgumentsAndResults) {
  auto p = parse(
      "span stream_sync = cudart:cudaStreamSynchronize | cudart:cudaStreamSynchronize_ptsz\n"
      "    (stream: ptr) -> (ret: i32)\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& ev = p->only<ast::EventDecl>();
  EXPECT_TRUE(ev.is_span);
  EXPECT_EQ(ev.name.name, "stream_sync");
  ASSERT_EQ(ev.begin.size(), 2u);
  EXPECT_TRUE(ev.end.empty());
  EXPECT_EQ(ev.begin[0].kind, ast::ProbeKind::Call);
  EXPECT_EQ(ev.begin[0].library.name, "cudart");
  EXPECT_FALSE(ev.begin[0].library_is_path);
  EXPECT_EQ(ev.begin[0].symbol, "cudaStreamSynchronize");
  EXPECT_EQ(ev.begin[1].symbol, "cudaStreamSynchronize_ptsz");
  EXPECT_EQ(ev.begin[1].range.text(), "cudart:cudaStreamSynchronize_ptsz");
  EXPECT_EQ(ev.begin[1].symbol_range.text(), "cudaStreamSynchronize_ptsz");
  ASSERT_EQ(ev.fields.size(), 2u);
  EXPECT_EQ(ev.fields[0].name.name, "stream");
  EXPECT_EQ(ev.fields[0].type.name.name, "ptr");
  EXPECT_EQ(ev.fields[0].type.type, ast::Type::of(ast::TypeKind::Ptr));
  EXPECT_EQ(ev.fields[0].index, 0);
  EXPECT_FALSE(ev.fields[0].is_result);
  EXPECT_EQ(ev.fields[1].name.name, "ret");
  EXPECT_EQ(ev.fields[1].type.type, ast::Type::integer(32, true));
  EXPECT_EQ(ev.fields[1].index, 0);
  EXPECT_TRUE(ev.fields[1].is_result);
}

TEST(ParseDecls, FieldTypesAndIndexes) {
  auto p = parse(
      "span m = cudart:cudaMalloc (devptr: ptr, size: bytes, t: duration, ok: bool, s: str, a: u8, "
      "b: i16, c: u64, weird: float) -> (ret: i32)");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& f = p->only<ast::EventDecl>().fields;
  ASSERT_EQ(f.size(), 10u);
  EXPECT_EQ(f[1].index, 1);
  EXPECT_EQ(f[1].type.type, ast::Type::integer(64, false, ast::Unit::Bytes));
  EXPECT_EQ(f[2].type.type, ast::Type::integer(64, false, ast::Unit::Duration));
  EXPECT_EQ(f[3].type.type, ast::Type::of(ast::TypeKind::Bool));
  EXPECT_EQ(f[4].type.type, ast::Type::of(ast::TypeKind::Str));
  EXPECT_EQ(f[5].type.type, ast::Type::integer(8, false));
  EXPECT_EQ(f[6].type.type, ast::Type::integer(16, true));
  EXPECT_EQ(f[7].type.type, ast::Type::integer(64, false));
  EXPECT_EQ(f[8].type.type.kind, ast::TypeKind::Unknown);  // the checker reports E0305
  EXPECT_EQ(f[8].type.name.name, "float");
  EXPECT_EQ(f[8].index, 8);
}

TEST(ParseDecls, PairSpanWithKeysAndFields) {
  auto p = parse(
      "module sched\n"
      "span offcpu = tracepoint sched:sched_switch key prev_pid .. tracepoint sched:sched_switch key "
      "next_pid\n  (prev_pid: i32, next_pid: i32)\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& ev = p->only<ast::EventDecl>();
  ASSERT_EQ(ev.begin.size(), 1u);
  ASSERT_EQ(ev.end.size(), 1u);
  EXPECT_EQ(ev.begin[0].kind, ast::ProbeKind::Tracepoint);
  EXPECT_EQ(ev.begin[0].category, "sched");
  EXPECT_EQ(ev.begin[0].name, "sched_switch");
  ASSERT_TRUE(ev.begin[0].key);
  EXPECT_EQ(std::get<ast::NameRef>(ev.begin[0].key->node).name.str(), "prev_pid");
  ASSERT_TRUE(ev.end[0].key);
  EXPECT_EQ(std::get<ast::NameRef>(ev.end[0].key->node).name.str(), "next_pid");
  EXPECT_EQ(ev.fields.size(), 2u);
}

TEST(ParseDecls, PairBeginAlternativesShareTheKey) {
  auto p = parse(
      "module sched\n"
      "span runq = tracepoint sched:sched_waking | tracepoint sched:sched_wakeup_new key pid\n"
      "    .. tracepoint sched:sched_switch key next_pid\n  (pid: i32)\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& ev = p->only<ast::EventDecl>();
  ASSERT_EQ(ev.begin.size(), 2u);
  ASSERT_EQ(ev.end.size(), 1u);
  EXPECT_EQ(ev.begin[0].name, "sched_waking");
  EXPECT_EQ(ev.begin[1].name, "sched_wakeup_new");
  for (const ast::ProbeSpec& b : ev.begin) {
    ASSERT_TRUE(b.key);
    EXPECT_EQ(std::get<ast::NameRef>(b.key->node).name.str(), "pid");
  }
  EXPECT_EQ(std::get<ast::NameRef>(ev.end[0].key->node).name.str(), "next_pid");
}

TEST(ParseDecls, PairOfBareCallsitesIsUprobes) {
  auto p = parse("span s = lib:begin_work .. lib:end_work");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& ev = p->only<ast::EventDecl>();
  EXPECT_EQ(ev.begin.at(0).kind, ast::ProbeKind::Uprobe);
  EXPECT_EQ(ev.end.at(0).symbol, "end_work");
  EXPECT_FALSE(ev.begin[0].key);
}

TEST(ParseDecls, PointWithAlternativesAndArguments) {
  auto p = parse(
      "point switch = tracepoint sched:sched_switch | raw_tracepoint sched_switch (prev_pid: i32, "
      "next_pid: i32)");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& ev = p->only<ast::EventDecl>();
  EXPECT_FALSE(ev.is_span);
  ASSERT_EQ(ev.begin.size(), 2u);
  EXPECT_EQ(ev.begin[1].kind, ast::ProbeKind::RawTracepoint);
  EXPECT_EQ(ev.fields.size(), 2u);
}

TEST(ParseDecls, Alias) {
  auto p = parse("alias cudaStreamSynchronize = cuda.stream_sync");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& a = p->only<ast::AliasDecl>();
  EXPECT_EQ(a.name.name, "cudaStreamSynchronize");
  EXPECT_EQ(a.target.str(), "cuda.stream_sync");
  ASSERT_EQ(a.target.parts.size(), 2u);
  EXPECT_EQ(a.target.parts[1].range.text(), "stream_sync");
}

TEST(ParseDecls, StateTransitions) {
  auto p = parse(
      "module python\n"
      "state gil_held per thread\n"
      "    set   on return of take_gil\n"
      "    clear on entry of  drop_gil\n"
      "    set on entry of libpython:PyGILState_Ensure\n"
      "    clear on entry of \"/usr/lib/libpython3.so\":PyGILState_Release\n"
      "    clear on cuda.malloc\n"
      "state other per process\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  auto states = p->all<ast::StateDecl>();
  ASSERT_EQ(states.size(), 2u);
  const ast::StateDecl& s = *states[0];
  EXPECT_EQ(s.name.name, "gil_held");
  EXPECT_EQ(s.scope, ast::StateScope::Thread);
  EXPECT_EQ(states[1]->scope, ast::StateScope::Process);
  ASSERT_EQ(s.transitions.size(), 5u);
  const auto& t0 = s.transitions[0];
  EXPECT_TRUE(t0.sets);
  EXPECT_EQ(t0.when, ast::StateWhen::Return);
  EXPECT_EQ(t0.probe.kind, ast::ProbeKind::Uretprobe);
  EXPECT_EQ(t0.probe.symbol, "take_gil");
  EXPECT_EQ(t0.probe.library.name, "");
  EXPECT_EQ(t0.range.text(), "set   on return of take_gil");
  const auto& t1 = s.transitions[1];
  EXPECT_FALSE(t1.sets);
  EXPECT_EQ(t1.when, ast::StateWhen::Entry);
  EXPECT_EQ(t1.probe.kind, ast::ProbeKind::Uprobe);
  EXPECT_EQ(t1.probe.symbol_range.text(), "drop_gil");
  EXPECT_EQ(s.transitions[2].probe.library.name, "libpython");
  EXPECT_EQ(s.transitions[2].probe.symbol, "PyGILState_Ensure");
  EXPECT_EQ(s.transitions[2].probe.range.text(), "libpython:PyGILState_Ensure");
  EXPECT_TRUE(s.transitions[3].probe.library_is_path);
  EXPECT_EQ(s.transitions[3].probe.library.name, "/usr/lib/libpython3.so");
  EXPECT_EQ(s.transitions[4].when, ast::StateWhen::Event);
  EXPECT_EQ(s.transitions[4].event.str(), "cuda.malloc");
}

TEST(ParseDecls, Metrics) {
  auto p = parse(
      "metric sync_latency\n    on cuda.stream_sync hist duration by comm, cgroup\n"
      "metric calls on cuda.malloc where size > 1MiB count\n"
      "metric bytes on cuda.malloc sum size by pid\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  auto m = p->all<ast::MetricDecl>();
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0]->name.name, "sync_latency");
  EXPECT_EQ(m[0]->event.str(), "cuda.stream_sync");
  EXPECT_EQ(m[0]->kind, ast::MetricKind::Hist);
  ASSERT_TRUE(m[0]->value);
  EXPECT_EQ(m[0]->value->range.text(), "duration");
  ASSERT_EQ(m[0]->by.size(), 2u);
  EXPECT_EQ(m[0]->by[1].name, "cgroup");
  EXPECT_FALSE(m[0]->where);
  EXPECT_EQ(m[1]->kind, ast::MetricKind::Count);
  ASSERT_TRUE(m[1]->where);
  EXPECT_EQ(m[1]->where->range.text(), "size > 1MiB");
  EXPECT_FALSE(m[1]->value);
  EXPECT_EQ(m[2]->kind, ast::MetricKind::Sum);
  EXPECT_EQ(m[2]->by.at(0).name, "pid");
}

TEST(ParseDecls, Outputs) {
  auto p = parse(
      "output ops = webhook \"https://alerts.internal/hook\" format alertmanager\n"
      "output log = json \"/var/log/seam/alerts.jsonl\"\n"
      "output term = stdout\n"
      "output hook = webhook \"http://x\"\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  auto o = p->all<ast::OutputDecl>();
  ASSERT_EQ(o.size(), 4u);
  EXPECT_EQ(o[0]->name.name, "ops");
  EXPECT_EQ(o[0]->kind, ast::OutputKind::Webhook);
  EXPECT_EQ(o[0]->target, "https://alerts.internal/hook");
  EXPECT_EQ(o[0]->target_range.text(), "\"https://alerts.internal/hook\"");
  ASSERT_TRUE(o[0]->format);
  EXPECT_EQ(o[0]->format->name, "alertmanager");
  EXPECT_EQ(o[1]->kind, ast::OutputKind::Json);
  EXPECT_EQ(o[1]->target, "/var/log/seam/alerts.jsonl");
  EXPECT_EQ(o[2]->kind, ast::OutputKind::Stdout);
  EXPECT_FALSE(o[3]->format);
}

TEST(ParseDecls, Routes) {
  auto p = parse(
      "route severity >= warning -> ops, log\nroute rule == \"gil\" or rule startswith \"x\" -> term\n"
      "rule r on x\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  auto r = p->all<ast::RouteDecl>();
  ASSERT_EQ(r.size(), 2u);
  const auto& cond = std::get<ast::Binary>(r[0]->condition->node);
  EXPECT_EQ(cond.op, ast::BinaryOp::Ge);
  EXPECT_EQ(r[0]->outputs.size(), 2u);
  EXPECT_EQ(r[0]->outputs[1].name, "log");
  EXPECT_EQ(r[0]->range.text(), "route severity >= warning -> ops, log");
  // `rule` is reserved, but names the alerting rule inside a route condition.
  const auto& orx = std::get<ast::Binary>(r[1]->condition->node);
  const auto& eq = std::get<ast::Binary>(orx.lhs->node);
  EXPECT_EQ(std::get<ast::NameRef>(eq.lhs->node).name.str(), "rule");
  EXPECT_EQ(eq.lhs->range.text(), "rule");
  EXPECT_EQ(p->all<ast::RuleDecl>().size(), 1u);
}

TEST(ParseDecls, DocComments) {
  auto p = parse(
      "module cuda\n\n# not this one\n\n# Blocks until the stream is idle.\n#   (indented)\n"
      "span stream_sync = cudart:cudaStreamSynchronize\n"
      "    (stream: ptr,   # the stream waited on\n"
      "     flags: u32, other: u32)  # last on its line\n"
      "    -> (ret: i32)   # cudaError_t\n"
      "library cudart = \"x\"  # not a doc of the library\n"
      "# a rule\nrule r on stream_sync\n"
      "# a metric\nmetric m on s count\n# a state\nstate s per thread\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& ev = p->only<ast::EventDecl>();
  EXPECT_EQ(ev.doc, "Blocks until the stream is idle.\n  (indented)");
  ASSERT_EQ(ev.fields.size(), 4u);
  EXPECT_EQ(ev.fields[0].doc, "the stream waited on");
  EXPECT_EQ(ev.fields[1].doc, "");
  EXPECT_EQ(ev.fields[2].doc, "last on its line");
  EXPECT_EQ(ev.fields[3].doc, "cudaError_t");
  EXPECT_EQ(p->only<ast::LibraryDecl>().doc, "");
  EXPECT_EQ(p->only<ast::RuleDecl>().doc, "a rule");
  EXPECT_EQ(p->only<ast::MetricDecl>().doc, "a metric");
  EXPECT_EQ(p->only<ast::StateDecl>().doc, "a state");
}

TEST(ParseDecls, WindowsLineEndingsAndTabs) {
  auto p = parse("module a\r\n# the doc\r\nspan\ts = l:f (x: u32)  # field doc\r\n\trule r on s\r\n");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& ev = p->only<ast::EventDecl>();
  EXPECT_EQ(ev.doc, "the doc");
  EXPECT_EQ(ev.fields.at(0).doc, "field doc");
  EXPECT_EQ(p->only<ast::RuleDecl>().event->str(), "s");
}

}  // namespace
}  // namespace seam::parse::test
