// `seam run`'s rule unit, built again on reload: every file together (a route may name an output
// another file declares), and a broken file comes back with its first error naming file and line.
#include <gtest/gtest.h>

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli/compile_driver.hpp"
#include "compiler/build/content_hash.hpp"
#include "support/test_support.hpp"

namespace seam::cli {
namespace {

TEST(CompileUnit, ARouteMayNameAnOutputAnotherFileDeclares) {
  test::TempDir dir;
  dir.write("outputs.seam", "output log = stdout\n");
  std::string rules = dir.write("a.seam",
                                "use cuda\n"
                                "route severity >= warning -> log\n"
                                "rule r\n"
                                "    on cuda.malloc\n"
                                "    alert warning \"m\"\n");
  CompileOptions alone;
  alone.paths = {rules};
  std::ostringstream err;
  EXPECT_FALSE(compile_rules(alone, err).ok);
  EXPECT_NE(err.str().find("error[E0107]: unknown output 'log'"), std::string::npos) << err.str();

  DriverOptions unit;  // seam run's unit: every file of the paths together
  unit.compile.paths = {dir.path()};
  unit.allow_insecure_rules = true;  // a test's temp dir
  runtime::UnitCompileResult r = CompileDriver(unit).compile_unit();
  EXPECT_NE(r.build, nullptr) << r.printed;
  EXPECT_EQ(r.printed, "");
}

TEST(CompileUnit, ABrokenFileNamesFileAndLineAndKeepsItsHash) {
  test::TempDir dir;
  std::string rules =
      dir.write("seq.seam", "use cuda\n\nrule seq\n    on cudaMalloc\n    alert info \"v2 {nosuch}\"\n");
  DriverOptions options;
  options.compile.paths = {rules};
  options.allow_insecure_rules = true;  // a test's temp dir
  int code = -1;
  runtime::UnitCompileResult r = CompileDriver(options).compile_unit(&code);
  EXPECT_EQ(r.build, nullptr);
  EXPECT_EQ(code, 1);
  EXPECT_EQ(r.error, rules + ":5:21: error[E0503]: unknown field '{nosuch}' in the message");
  EXPECT_NE(r.printed.find("1 error, 0 warnings"), std::string::npos) << r.printed;
  ASSERT_EQ(r.diagnostics.error_count(), 1u);
  EXPECT_EQ(r.diagnostics.all().front().code, diag::Code::BadInterpolation);
  EXPECT_EQ(r.files, (std::map<std::string, std::string>{{rules, build::hash_file(rules)}}));
  EXPECT_FALSE(r.hash.empty());
}

// The unit's error is its first error diagnostic, found by severity: a warning printed before
// it whose source line reads ": error" is not taken for it.
TEST(CompileUnit, TheErrorIsTheFirstErrorDiagnosticNotALineThatReadsLikeOne) {
  test::TempDir dir;
  std::string rules = dir.write("two.seam",
                                "use cuda\n\n"
                                "rule never\n    on cuda.malloc\n    where false  # logged as: error\n"
                                "    alert info \"x\"\n\n"
                                "rule seq\n    on cudaMalloc\n    alert info \"v2 {nosuch}\"\n");
  DriverOptions options;
  options.compile.paths = {rules};
  options.allow_insecure_rules = true;
  runtime::UnitCompileResult r = CompileDriver(options).compile_unit();
  EXPECT_EQ(r.build, nullptr);
  ASSERT_NE(r.printed.find("| "
                           "    where false  # logged as: error"),
            std::string::npos)
      << r.printed;
  EXPECT_EQ(r.error, rules + ":10:21: error[E0503]: unknown field '{nosuch}' in the message");
}

}  // namespace
}  // namespace seam::cli

namespace seam::cli {
namespace {

// A unit's hash is that of the text it was compiled from, not of a second read of the file: the
// file is rewritten as soon as the loader has read it (its close wakes an editor thread), and the
// unit must come back with the first version's diagnostics and the first version's hash, while
// the file on disk hashes as the second. A rewrite that comes only after compile_unit returned
// proves nothing, and that try is made again (up to 20 times: the driver reads the stdlib before
// the file, so little work is left after the read, and a loaded machine may wake the editor late).
TEST(CompileUnit, TheHashIsOfTheExactTextCompiled) {
  const std::string first = "use cuda\n\nrule seq\n    on cudaMalloc\n    alert info \"v1 {first}\"\n";
  const std::string second = "use cuda\n\nrule seq\n    on cudaMalloc\n    alert info \"v2 {second}\"\n";
  bool in_time = false;
  for (int attempt = 0; attempt < 20 && !in_time; ++attempt) {
    test::TempDir dir;
    std::string path = dir.write("edited.seam", first);
    int watch = inotify_init1(IN_CLOEXEC);
    ASSERT_GE(watch, 0) << std::strerror(errno);
    ASSERT_GE(inotify_add_watch(watch, path.c_str(), IN_CLOSE_NOWRITE), 0) << std::strerror(errno);
    std::atomic<bool> returned{false}, read_seen{false}, late{false};
    std::thread editor([&] {
      pollfd p{watch, POLLIN, 0};
      char event[4096];
      if (poll(&p, 1, 30'000) != 1 || read(watch, event, sizeof event) <= 0) return;
      read_seen = true;  // the loader read the file and closed it
      late = returned.load();
      std::ofstream(path, std::ios::trunc) << second;
    });
    DriverOptions options;
    options.compile.paths = {path};
    options.allow_insecure_rules = true;  // a test's temp dir
    runtime::UnitCompileResult r = CompileDriver(options).compile_unit();
    returned = true;
    editor.join();
    close(watch);
    ASSERT_TRUE(read_seen) << "compile_unit never read " << path;
    ASSERT_EQ(build::hash_file(path), build::ContentHash().add(second).hex()) << "the file was not rewritten";
    if (late) continue;
    in_time = true;
    EXPECT_EQ(r.error, path + ":5:21: error[E0503]: unknown field '{first}' in the message") << r.printed;
    EXPECT_EQ(r.files[path], build::ContentHash().add(first).hex());
  }
  EXPECT_TRUE(in_time) << "the file was rewritten only after compile_unit returned, twenty times";
}

}  // namespace
}  // namespace seam::cli
