// The compile driver of `seam run`'s start and reloads: every read goes through its loader, so a
// counting loader shows what a start reads (the stdlib once, each rule file once, a file reached
// under two spellings once) and what a reload reads again (the changed file, not the stdlib).
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
  UnitFiles files = driver.split_units(all.program);
  ASSERT_EQ(files.units, (std::vector<std::string>{a, b}));
  std::vector<runtime::UnitCompileResult> units = driver.build_units(all, files.units);

  ASSERT_EQ(units.size(), 2u);
  for (const runtime::UnitCompileResult& u : units) ASSERT_NE(u.build, nullptr) << u.printed;
  EXPECT_EQ(units[0].build->plan.rules.size(), 1u);
  EXPECT_EQ(units[0].build->plan.rules.front().name, "a");
  EXPECT_EQ(units[1].build->plan.rules.front().name, "b");
  EXPECT_EQ(units[0].hash, build::ContentHash().add(kRuleA).hex());
  EXPECT_GT(loader.stdlib_files(), 1);
  EXPECT_EQ(loader.most_reads_of_a_stdlib_file(), 1);
  EXPECT_EQ(loader.reads[a], 1);
  EXPECT_EQ(loader.reads[b], 1);
  EXPECT_EQ(loader.reads.size(), static_cast<size_t>(loader.stdlib_files()) + 2)
      << "a file read under another name";

  // A reload of a.seam reads it again, with the stdlib as read at start.
  std::ofstream(a, std::ios::trunc) << kRuleA << "\n";
  runtime::UnitCompileResult reloaded = driver.compile_unit(a);
  EXPECT_EQ(loader.reads[a], 2);
  EXPECT_EQ(loader.reads[b], 1);
  EXPECT_EQ(loader.most_reads_of_a_stdlib_file(), 1);
  EXPECT_EQ(reloaded.hash, build::ContentHash().add(kRuleA + "\n").hex());
}

// A module file among the user's paths is compiled with every unit and is no unit of its own;
// a unit's reload reads it again (it may have changed), never the stdlib.
TEST(CompileDriver, AUserModuleIsNoUnitAndIsReadWithEveryReload) {
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
  UnitFiles files = driver.split_units(all.program);
  EXPECT_EQ(files.units, (std::vector<std::string>{rules}));
  EXPECT_EQ(files.not_units, (std::vector<std::string>{module}));
  runtime::UnitCompileResult unit = driver.compile_unit(rules);
  EXPECT_EQ(unit.error, "");
  EXPECT_EQ(loader.reads[module], 2);
  EXPECT_EQ(loader.reads[rules], 2);
  EXPECT_EQ(loader.most_reads_of_a_stdlib_file(), 1);
}

}  // namespace
}  // namespace seam::cli
