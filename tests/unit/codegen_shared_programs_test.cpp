// Sites whose programs would be the same C become one program attached at each of their probes
// (codegen::share_identical_programs): a rule naming several syscalls runs one program on all of
// their tracepoints, loaded and verified once.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "support/build_generated.hpp"
#include "support/compile_text.hpp"

namespace seam {
namespace {

using test::Compiled;

// Each attachment's "category:name" -> the program it names.
std::map<std::string, std::string> program_by_probe(const plan::Plan& p) {
  std::map<std::string, std::string> out;
  for (const plan::Attachment& a : p.attachments) out[a.category + ":" + a.name] = a.program;
  return out;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CodegenSharedPrograms, ARuleNamingThreeSyscallsRunsOneProgramAtEachEndOfThem) {
  Compiled c = test::compile_text(
      "use syscalls\nrule r on syscalls.any where id in (write, openat, mmap) and duration > 1ms\n"
      "  alert info \"{id}\" with id\n");
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_EQ(c.lowered.sites.size(), 6u);  // before: one program per tracepoint
  codegen::share_identical_programs(c.lowered);
  codegen::Generated g = codegen::generate(c.lowered);

  std::map<std::string, std::string> program = program_by_probe(c.lowered.plan);
  const std::string enter = program.at("syscalls:sys_enter_write");
  const std::string exit = program.at("syscalls:sys_exit_write");
  EXPECT_NE(enter, exit);
  for (const char* name : {"openat", "mmap"}) {
    EXPECT_EQ(program.at(std::string("syscalls:sys_enter_") + name), enter) << name;
    EXPECT_EQ(program.at(std::string("syscalls:sys_exit_") + name), exit) << name;
  }
  EXPECT_EQ(c.lowered.plan.attachments.size(), 6u);  // every tracepoint is still attached
  EXPECT_EQ(c.lowered.sites.size(), 2u);
  // The C: two tracepoint programs, each named once, whose comment lists its attach points.
  EXPECT_EQ(count_of(g.c_source, "SEC(\"tracepoint/syscalls/"), 2u) << g.c_source;
  EXPECT_EQ(count_of(g.c_source, "int " + enter + "("), 1u);
  std::string enter_text = test::program_text(g.c_source, enter);
  ASSERT_FALSE(enter_text.empty());
  size_t comment = g.c_source.rfind("/* ", g.c_source.find("int " + enter + "("));
  std::string described = g.c_source.substr(comment, g.c_source.find("*/", comment) - comment);
  for (const char* name : {"sys_enter_write", "sys_enter_openat", "sys_enter_mmap"})
    EXPECT_NE(described.find(name), std::string::npos) << described;
  // The begin-time filter names all three syscalls: the one program serves each.
  for (const char* number : {"(1LL)", "(257LL)", "(9LL)"})
    EXPECT_NE(enter_text.find(number), std::string::npos) << number << "\n" << enter_text;

  if (!test::can_build_generated()) GTEST_SKIP() << "no clang or kernel BTF: the C was checked, not built";
  build::BuildResult built = test::build_generated(c.lowered, g.c_source);
  ASSERT_TRUE(built.object.ok()) << built.object.error() << "\n" << built.clang_stderr;
}

TEST(CodegenSharedPrograms, DifferentCodeKeepsItsOwnProgram) {
  // futex's tracepoints read its op; write's do not: the same span kind, different programs.
  Compiled c = test::compile_text(
      "use syscalls\n"
      "rule f on syscalls.futex where duration > 1ms and op & 0x7f == 0 alert info \"f\"\n"
      "rule w on syscalls.any where id == write and duration > 1ms alert info \"w\"\n");
  ASSERT_EQ(c.diagnostics, "");
  size_t sites = c.lowered.sites.size();
  codegen::share_identical_programs(c.lowered);
  EXPECT_EQ(c.lowered.sites.size(), sites);
  std::map<std::string, std::string> program = program_by_probe(c.lowered.plan);
  EXPECT_NE(program.at("syscalls:sys_enter_futex"), program.at("syscalls:sys_enter_write"));
  EXPECT_NE(program.at("syscalls:sys_exit_futex"), program.at("syscalls:sys_exit_write"));
}

TEST(CodegenSharedPrograms, ThePackSharesOnlyOutsideFallbackChainsAndSessions) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const std::string& path : test::pack_rule_files())
    files.emplace_back(std::filesystem::path(path).filename().string(), test::read_file(path));
  Compiled c = test::compile_files(files);
  ASSERT_EQ(c.diagnostics, "");
  size_t before = c.lowered.sites.size();
  codegen::share_identical_programs(c.lowered);
  EXPECT_LT(c.lowered.sites.size(), before);  // syscall_slow's tracepoints share theirs
  std::map<std::string, size_t> users;
  for (const plan::Attachment& a : c.lowered.plan.attachments) ++users[a.program];
  std::set<std::string> site_programs;
  for (const plan::Site& s : c.lowered.sites)
    site_programs.insert(c.lowered.plan.attachments.at(static_cast<size_t>(s.attachment)).program);
  for (const plan::Attachment& a : c.lowered.plan.attachments) {
    EXPECT_EQ(site_programs.count(a.program), 1u) << a.program << ": no site writes it";
    if (a.is_fallback || !a.fallback.empty()) {
      EXPECT_EQ(users[a.program], 1u) << a.program;
    }
  }
  for (const plan::Site& s : c.lowered.sites) {
    if (s.session_span >= 0) {
      EXPECT_EQ(users[c.lowered.plan.attachments.at(static_cast<size_t>(s.attachment)).program], 1u);
    }
  }
}

}  // namespace
}  // namespace seam
