// Every probe kind, in points and spans.
#include "unit/parse_test_util.hpp"

namespace seam::parse::test {
namespace {

const ast::ProbeSpec& first_probe(const Parsed& p) {
  const auto& ev = p.only<ast::EventDecl>();
  static const ast::ProbeSpec none;
  EXPECT_FALSE(ev.begin.empty()) << p.dump();
  return ev.begin.empty() ? none : ev.begin.front();
}

TEST(ParseProbes, BareCallInPointIsUprobeWithOffset) {
  auto p = parse("point p = cudart:cudaLaunchKernel+0x10");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& s = first_probe(*p);
  EXPECT_EQ(s.kind, ast::ProbeKind::Uprobe);
  EXPECT_EQ(s.library.name, "cudart");
  EXPECT_EQ(s.symbol, "cudaLaunchKernel");
  EXPECT_EQ(s.offset, 16u);
  EXPECT_EQ(s.range.text(), "cudart:cudaLaunchKernel+0x10");
}

TEST(ParseProbes, UprobeAndUretprobe) {
  auto p = parse("point p = uprobe \"/opt/lib/libx.so\":work + 12 | uretprobe libx:work");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& ev = p->only<ast::EventDecl>();
  ASSERT_EQ(ev.begin.size(), 2u);
  EXPECT_EQ(ev.begin[0].kind, ast::ProbeKind::Uprobe);
  EXPECT_TRUE(ev.begin[0].library_is_path);
  EXPECT_EQ(ev.begin[0].library.name, "/opt/lib/libx.so");
  EXPECT_EQ(ev.begin[0].library.range.text(), "\"/opt/lib/libx.so\"");
  EXPECT_EQ(ev.begin[0].offset, 12u);
  EXPECT_EQ(ev.begin[1].kind, ast::ProbeKind::Uretprobe);
  EXPECT_EQ(ev.begin[1].library.name, "libx");
}

TEST(ParseProbes, ProbeWordsAreLibraryNamesBeforeAColon) {
  auto p = parse("point p = uprobe:work | perf:x");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& ev = p->only<ast::EventDecl>();
  EXPECT_EQ(ev.begin.at(0).kind, ast::ProbeKind::Uprobe);
  EXPECT_EQ(ev.begin.at(0).library.name, "uprobe");
  EXPECT_EQ(ev.begin.at(1).library.name, "perf");
}

TEST(ParseProbes, Usdt) {
  auto p = parse("point gc = usdt libpython:python:gc__start (generation: i32)");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& s = first_probe(*p);
  EXPECT_EQ(s.kind, ast::ProbeKind::Usdt);
  EXPECT_EQ(s.library.name, "libpython");
  EXPECT_EQ(s.category, "python");
  EXPECT_EQ(s.name, "gc__start");
}

TEST(ParseProbes, TracepointAndRawTracepoint) {
  auto p = parse("point p = tracepoint syscalls:sys_enter_openat | raw_tracepoint sched_switch");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& ev = p->only<ast::EventDecl>();
  EXPECT_EQ(ev.begin.at(0).kind, ast::ProbeKind::Tracepoint);
  EXPECT_EQ(ev.begin.at(0).category, "syscalls");
  EXPECT_EQ(ev.begin.at(0).name, "sys_enter_openat");
  EXPECT_EQ(ev.begin.at(1).kind, ast::ProbeKind::RawTracepoint);
  EXPECT_EQ(ev.begin.at(1).symbol, "sched_switch");
}

TEST(ParseProbes, KernelProbes) {
  auto p = parse(
      "point p = kprobe do_sys_openat2+0x4 | kretprobe do_sys_openat2 | fentry vfs_read | fexit vfs_write");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& b = p->only<ast::EventDecl>().begin;
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].kind, ast::ProbeKind::Kprobe);
  EXPECT_EQ(b[0].symbol, "do_sys_openat2");
  EXPECT_EQ(b[0].offset, 4u);
  EXPECT_EQ(b[1].kind, ast::ProbeKind::Kretprobe);
  EXPECT_EQ(b[2].kind, ast::ProbeKind::Fentry);
  EXPECT_EQ(b[2].symbol, "vfs_read");
  EXPECT_EQ(b[3].kind, ast::ProbeKind::Fexit);
  EXPECT_EQ(b[3].symbol_range.text(), "vfs_write");
}

TEST(ParseProbes, PerfAndInterval) {
  auto p =
      parse("point p = perf cpu_clock at 99 hz | perf cycles every 100000 | perf x at 49hz | interval 1.5s");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  const auto& b = p->only<ast::EventDecl>().begin;
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].kind, ast::ProbeKind::Perf);
  EXPECT_EQ(b[0].symbol, "cpu_clock");
  EXPECT_EQ(b[0].frequency, 99u);
  EXPECT_EQ(b[0].period, 0u);
  EXPECT_EQ(b[1].period, 100000u);
  EXPECT_EQ(b[2].frequency, 49u);
  EXPECT_EQ(b[3].kind, ast::ProbeKind::Interval);
  EXPECT_EQ(b[3].interval_ns, 1'500'000'000);
}

TEST(ParseProbes, IntervalNeedsATimeUnit) {
  auto p = parse("point p = interval 10\npoint q = interval 4KiB");
  EXPECT_EQ(p->messages(), (std::vector<std::string>{
                               "E0303 1:20 interval '10' needs a time unit (ns, us, ms, s, m, h), e.g. 1m",
                               "E0301 2:20 interval '4KiB' must be a duration, not a size"}));
}

TEST(ParseProbes, SymbolsMayBeReservedWordsAfterAColon) {
  auto p = parse("span s = lib:state | lib:rule");
  ASSERT_FALSE(p->diags.has_errors()) << p->dump();
  EXPECT_EQ(p->only<ast::EventDecl>().begin.at(1).symbol, "rule");
}

}  // namespace
}  // namespace seam::parse::test
