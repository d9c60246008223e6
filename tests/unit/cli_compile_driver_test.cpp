// The compile driver of `seam run`'s start and reloads: every read goes through its loader, so a
// counting loader shows what a start reads (the stdlib once, each rule file once, a file reached
// under two spellings once) and what a reload reads again (every rule file, not the stdlib).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "cli/compile_driver.hpp"
#include "compiler/build/content_hash.hpp"
#include "support/test_support.hpp"

namespace seam::cli {
namespace {

const std::string kRuleA = "use cuda\n\nrule a\n    on cuda.malloc\n    alert info \"a\"\n";
const std::string kRuleB = "use cuda\n\nrule b\n    on cuda.malloc\n    alert info \"b\"\n";

struct CountingLoader {
  std::mutex mutex;
  std::map<std::string, int> reads;  // path as read -> times
  check::ReadSource reader() {
    return [this](const std::string& path, diag::Diagnostics& diags) {
      std::lock_guard lock(mutex);
      ++reads[path];
      return check::read_file(path, parse::Limits{}, diags);
    };
  }
  int stdlib_files() {
    int n = 0;
    for (const auto& [path, times] : reads) n += path.find("/stdlib/") != std::string::npos;
    return n;
  }
  int most_reads_of_a_stdlib_file() {
    int most = 0;
    for (const auto& [path, times] : reads)
      if (path.find("/stdlib/") != std::string::npos) most = std::max(most, times);
    return most;
  }
};

TEST(CompileDriver, AStartReadsTheStdlibOnceAndEachRuleFileOnce) {
  test::TempDir dir;
  std::string a = dir.write("a.seam", kRuleA);
  std::string b = dir.write("b.seam", kRuleB);
  CountingLoader loader;
  DriverOptions options;
  options.compile.paths = {dir.path(), dir.path() + "/./a.seam"};  // a.seam reached twice
  options.allow_insecure_rules = true;                             // a test's temp dir
  CompileDriver driver(options, loader.reader());

  std::ostringstream err;
  CompiledRules all = driver.compile_all(err);
  ASSERT_TRUE(all.ok) << err.str();
  EXPECT_EQ(driver.files(), (std::vector<std::string>{a, b}));
  runtime::UnitCompileResult unit = driver.build_unit(all, err);

  // One unit, one object: both files' rules, each with its file, both files' hashes.
  ASSERT_NE(unit.build, nullptr) << unit.printed;
  ASSERT_EQ(unit.build->plan.rules.size(), 2u);
  EXPECT_EQ(unit.build->plan.rules[0].name, "a");
  EXPECT_EQ(unit.build->plan.rules[0].file, a);
  EXPECT_EQ(unit.build->plan.rules[1].name, "b");
  EXPECT_EQ(unit.build->plan.rules[1].file, b);
  EXPECT_EQ(unit.build->files,
            (std::map<std::string, std::string>{{a, build::ContentHash().add(kRuleA).hex()},
                                                {b, build::ContentHash().add(kRuleB).hex()}}));
  EXPECT_GT(loader.stdlib_files(), 1);
  EXPECT_EQ(loader.most_reads_of_a_stdlib_file(), 1);
  EXPECT_EQ(loader.reads[a], 1);
  EXPECT_EQ(loader.reads[b], 1);
  EXPECT_EQ(loader.reads.size(), static_cast<size_t>(loader.stdlib_files()) + 2)
      << "a file read under another name";

  // A reload after an edit of a.seam builds the set again: every file read again, the stdlib as
  // read at start.
  std::ofstream(a, std::ios::trunc) << kRuleA << "\n";
  runtime::UnitCompileResult reloaded = driver.compile_unit();
  ASSERT_NE(reloaded.build, nullptr) << reloaded.printed;
  EXPECT_EQ(loader.reads[a], 2);
  EXPECT_EQ(loader.reads[b], 2);
  EXPECT_EQ(loader.most_reads_of_a_stdlib_file(), 1);
  EXPECT_EQ(reloaded.files[a], build::ContentHash().add(kRuleA + "\n").hex());
  EXPECT_EQ(reloaded.files[b], unit.files[b]);
}

// A module file among the user's paths is part of the unit (an edit of it is a change), and a
// reload reads it again, never the stdlib.
TEST(CompileDriver, AUserModuleIsPartOfTheUnitAndIsReadWithEveryReload) {
  test::TempDir dir;
  std::string module = dir.write("mylib.seam",
                                 "module mylib\n\nlibrary cudart = \"libcudart.so*\"\n\n"
                                 "span grab = cudart:cudaMalloc -> (ret: i32)\n");
  std::string rules = dir.write("r.seam", "use mylib\n\nrule r\n    on mylib.grab\n    alert info \"r\"\n");
  CountingLoader loader;
  DriverOptions options;
  options.compile.paths = {dir.path()};
  options.allow_insecure_rules = true;  // a test's temp dir
  CompileDriver driver(options, loader.reader());
  std::ostringstream err;
  CompiledRules all = driver.compile_all(err);
  ASSERT_TRUE(all.ok) << err.str();
  runtime::UnitCompileResult unit = driver.compile_unit();
  EXPECT_EQ(unit.error, "");
  ASSERT_NE(unit.build, nullptr) << unit.printed;
  EXPECT_EQ(unit.build->files.size(), 2u);
  EXPECT_EQ(unit.build->files.count(module), 1u);
  EXPECT_EQ(loader.reads[module], 2);
  EXPECT_EQ(loader.reads[rules], 2);
  EXPECT_EQ(loader.most_reads_of_a_stdlib_file(), 1);
}

// seam run's one object: three files with a rule on one tracepoint give one attachment there,
// serving the three rules, and one program for it in the generated C.
TEST(CompileDriver, ThreeFilesOnOneTracepointShareOneProgram) {
  test::TempDir dir;
  for (const char* name : {"a", "b", "c"})
    dir.write(std::string(name) + ".seam",
              std::string("use syscalls\n\nrule ") + name +
                  "\n    on syscalls.any where id == getppid\n    alert info \"" + name + "\"\n");
  DriverOptions options;
  options.compile.paths = {dir.path()};
  options.allow_insecure_rules = true;  // a test's temp dir
  CompileDriver driver(options);
  std::ostringstream err;
  CompiledRules all = driver.compile_all(err);
  ASSERT_TRUE(all.ok) << err.str();
  size_t at_entry = 0;
  for (const plan::Attachment& a : all.lowered.plan.attachments)
    if (a.name == "sys_enter_getppid") {
      ++at_entry;
      EXPECT_EQ(a.rules.size(), 3u);
    }
  EXPECT_EQ(at_entry, 1u);
  const std::string& c = all.generated.c_source;
  std::string section = "SEC(\"tracepoint/syscalls/sys_enter_getppid\")";
  size_t first = c.find(section);
  ASSERT_NE(first, std::string::npos) << c;
  EXPECT_EQ(c.find(section, first + 1), std::string::npos) << "two programs at one site";
}

}  // namespace
}  // namespace seam::cli
