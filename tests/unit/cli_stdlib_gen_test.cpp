// `seam stdlib gen` as a command: output on stdout, the sidecar file, and the exit codes (0 ok,
// 2 bad usage or a missing header, 1 errors in the header or nothing matched).
#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace seam::test {
namespace {

const std::string kFixture = std::string(SEAM_SOURCE_DIR) + "/tests/fixtures/gen/fake_runtime.h";

TEST(CliStdlibGen, PrintsTheModuleAndWritesTheEnums) {
  TempDir dir;
  std::string enums = dir.path() + "/fake.enums.json";
  CommandResult r = run_command({SEAM_EXE, "stdlib", "gen", "--header", kFixture, "--library",
                                 "fakert=libfakert.so*", "--functions", "fakeMemcpy*", "--module", "fake",
                                 "--enums-out", enums, "--variants-define", "FAKE_PER_THREAD"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("module fake\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("span memcpy_async = fakert:fakeMemcpyAsync | fakert:fakeMemcpyAsync_ptsz\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("fakeMalloc"), std::string::npos);
  EXPECT_NE(read_file(enums).find("\"1\": \"fakeCopyHostToDevice\""), std::string::npos) << read_file(enums);
}

TEST(CliStdlibGen, TheOutputPassesLint) {
  TempDir dir;
  CommandResult gen = run_command({SEAM_EXE, "stdlib", "gen", "--header", kFixture, "--library",
                                   "fakert=libfakert.so*", "--functions", "fake*", "--module", "fake"});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  dir.write("stdlib/fake.seam", gen.out);
  std::string rules =
      dir.write("rules.seam", "use fake\nrule r on fake.malloc where size > 1GiB alert \"big\"\n");
  CommandResult lint = run_command({SEAM_EXE, "lint", "--stdlib", dir.path() + "/stdlib", rules});
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
}

TEST(CliStdlibGen, MissingHeaderIsExit2) {
  CommandResult r = run_command({SEAM_EXE, "stdlib", "gen", "--header", "/nonexistent/h.h", "--library",
                                 "a=liba.so", "--functions", "*"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/h.h"), std::string::npos) << r.err;
}

TEST(CliStdlibGen, BadLibrarySyntaxIsExit2) {
  for (const char* bad : {"libcudart.so*", "=libcudart.so*", "cu-dart=lib.so"}) {
    CommandResult r =
        run_command({SEAM_EXE, "stdlib", "gen", "--header", kFixture, "--library", bad, "--functions", "*"});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find("--library"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  CommandResult missing = run_command({SEAM_EXE, "stdlib", "gen", "--header", kFixture, "--functions", "*"});
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(CliStdlibGen, ErrorsInTheHeaderAreExit1WithFileAndLine) {
  TempDir dir;
  std::string header = dir.write("broken.h", "int fine(void);\n\nint broken(undeclared_t x);\n");
  CommandResult r = run_command(
      {SEAM_EXE, "stdlib", "gen", "--header", header, "--library", "a=liba.so", "--functions", "*"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(header + ":3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("error: "), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(CliStdlibGen, IncludeDirectoriesAndDefinesReachTheCompiler) {
  TempDir dir;
  dir.write("inc/types.h", "typedef unsigned short handle_t;\n");
  std::string header = dir.write("api/api.h",
                                 "#include <types.h>\n"
                                 "#ifdef WIDE\ntypedef long width_t;\n#else\ntypedef char width_t;\n#endif\n"
                                 "int apiOpen(handle_t h, width_t w);\n");
  std::vector<std::string> args = {SEAM_EXE,    "stdlib",    "gen",         "--header", header,
                                   "--library", "a=liba.so", "--functions", "*"};
  CommandResult without = run_command(args);
  EXPECT_EQ(without.exit_code, 1);
  EXPECT_NE(without.err.find("types.h"), std::string::npos) << without.err;
  args.insert(args.end(), {"-I", dir.path() + "/inc", "-D", "WIDE"});
  CommandResult with = run_command(args);
  EXPECT_EQ(with.exit_code, 0) << with.err;
  EXPECT_NE(with.out.find("span open = a:apiOpen (h: u16, w: i64) -> (ret: i32)\n"), std::string::npos)
      << with.out;
}

TEST(CliStdlibGen, NoMatchingFunctionIsExit1) {
  CommandResult r = run_command(
      {SEAM_EXE, "stdlib", "gen", "--header", kFixture, "--library", "a=liba.so", "--functions", "nope*"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no function matches nope*"), std::string::npos) << r.err;
}

TEST(CliStdlibGen, DocStillRunsWithoutGen) {
  CommandResult r = run_command({SEAM_EXE, "stdlib", "doc"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("## cuda"), std::string::npos);
}

}  // namespace
}  // namespace seam::test
