// `seam lint` as users run it: exit codes, the three output formats, inputs it cannot read.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/test_support.hpp"

namespace {

using seam::test::CommandResult;
using seam::test::run_command;
using seam::test::TempDir;

const std::string kSource = SEAM_SOURCE_DIR;

CommandResult lint(std::vector<std::string> args) {
  args.insert(args.begin(), {SEAM_EXE, "lint"});
  return run_command(args);
}

const char* const kBadRule =
    "use cuda\n"
    "rule slow\n"
    "    on cuda.stream_synk where duration > 10ms\n"
    "    alert \"slow\"\n";

TEST(CliLint, RepositoryRulesAndStdlibAreClean) {
  CommandResult r = lint({kSource + "/rules", kSource + "/rules-opt-in", kSource + "/stdlib", "--strict"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CliLint, RepositoryLintIsFast) {
  auto start = std::chrono::steady_clock::now();
  CommandResult r = lint({kSource + "/rules", kSource + "/stdlib"});
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // The whole process, start to exit; the budget for the check itself is 100 ms.
  EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 500);
}

TEST(CliLint, ErrorsExitOneWithTextOnStdout) {
  TempDir dir;
  std::string path = dir.write("rules/a.seam", kBadRule);
  CommandResult r = lint({path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, path +
                       ":3:8: error[E0103]: unknown event 'cuda.stream_synk'\n"
                       "    3 |     on cuda.stream_synk where duration > 10ms\n"
                       "      |        ^~~~~~~~~~~~~~~~\n"
                       "      = hint: did you mean cuda.stream_sync?\n"
                       "\n"
                       "1 error, 0 warnings\n");
}

TEST(CliLint, DefaultPathIsRulesDirectory) {
  CommandResult r = run_command({"/bin/sh", "-c", "cd '" + kSource + "' && '" SEAM_EXE "' lint"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(CliLint, WarningsPassUnlessStrict) {
  TempDir dir;
  std::string path = dir.write("w.seam", "use cuda, sched\nrule r\n    on cuda.malloc\n    alert \"x\"\n");
  CommandResult plain = lint({path});
  EXPECT_EQ(plain.exit_code, 0) << plain.out;
  EXPECT_NE(plain.out.find("warning[W0003]"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("0 errors, 1 warning\n"), std::string::npos) << plain.out;
  CommandResult strict = lint({"--strict", path});
  EXPECT_EQ(strict.exit_code, 1) << strict.out;
}

TEST(CliLint, JsonFormat) {
  TempDir dir;
  std::string path = dir.write("a.seam", kBadRule);
  CommandResult r = lint({"--format", "json", path});
  EXPECT_EQ(r.exit_code, 1);
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["errors"], 1);
  EXPECT_EQ(j["warnings"], 0);
  ASSERT_EQ(j["diagnostics"].size(), 1u);
  nlohmann::json d = j["diagnostics"][0];
  EXPECT_EQ(
      d, nlohmann::json::parse(R"({"file":")" + path + R"(","line":3,"column":8,"end_line":3,"end_column":24,
      "severity":"error","code":"E0103","name":"unknown-event","message":"unknown event 'cuda.stream_synk'",
      "hints":["did you mean cuda.stream_sync?"]})"));
}

TEST(CliLint, GithubFormat) {
  TempDir dir;
  std::string path = dir.write("a.seam", kBadRule);
  CommandResult r = lint({"--format=github", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "::error file=" + path +
                       ",line=3,col=8,endLine=3,endColumn=24,title=E0103 unknown-event::unknown event "
                       "'cuda.stream_synk' (did you mean cuda.stream_sync?)\n");
}

TEST(CliLint, ExtraStdlibDirectory) {
  TempDir lib;
  lib.write("extra.seam", "module extra\npoint tick = interval 1s\n");
  TempDir dir;
  std::string rule = dir.write("r.seam",
                               "use cuda, extra\nrule r\n    on tick where cpu == 0\n    alert \"x\"\n"
                               "rule s\n    on cuda.malloc\n    alert \"y\"\n");
  EXPECT_EQ(lint({rule}).exit_code, 1);
  CommandResult r = lint({"--stdlib", lib.path(), rule, "--strict"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "");
}

TEST(CliLint, CleanJsonAndGithub) {
  CommandResult json = lint({"--format", "json", kSource + "/rules"});
  EXPECT_EQ(json.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(json.out),
            nlohmann::json::parse(R"({"diagnostics":[],"errors":0,"warnings":0})"));
  CommandResult github = lint({"--format", "github", kSource + "/rules"});
  EXPECT_EQ(github.exit_code, 0);
  EXPECT_EQ(github.out, "");
}

TEST(CliLint, BadUsageExitsTwo) {
  EXPECT_EQ(lint({"--format", "xml", kSource + "/rules"}).exit_code, 2);
  EXPECT_EQ(lint({"--no-such-flag"}).exit_code, 2);
}

TEST(CliLint, WalksDirectoriesRecursively) {
  TempDir dir;
  dir.write("top.seam", "use cuda\nrule ok\n    on cuda.malloc\n    alert \"x\"\n");
  dir.write("deep/er/bad.seam", kBadRule);
  dir.write("deep/notes.txt", "not a rule file {");
  CommandResult r = lint({dir.path()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find(dir.path() + "/deep/er/bad.seam:3:8: error[E0103]"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("notes.txt"), std::string::npos);
}

TEST(CliLint, NonexistentPathExitsTwo) {
  TempDir dir;
  std::string path = dir.path() + "/missing.seam";
  CommandResult r = lint({path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, path + ": error[E0004]: cannot read: No such file or directory\n\n1 error, 0 warnings\n");
}

TEST(CliLint, UnreadableFileExitsTwo) {
  TempDir dir;
  // A dangling symlink cannot be read whoever runs the test, root included.
  std::string link = dir.path() + "/dangling.seam";
  ASSERT_EQ(::symlink((dir.path() + "/nowhere").c_str(), link.c_str()), 0);
  CommandResult r = lint({dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find(link + ": error[E0004]: cannot read: No such file or directory\n"), std::string::npos)
      << r.out;
}

TEST(CliLint, FifoIsNotReadAndExitsTwo) {
  TempDir dir;
  std::string fifo = dir.path() + "/pipe.seam";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  CommandResult r = lint({fifo});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, fifo + ": error[E0004]: cannot read: not a regular file\n\n1 error, 0 warnings\n");
}

TEST(CliLint, HugeFileIsRejectedBeforeReading) {
  TempDir dir;
  std::string path = dir.path() + "/huge.seam";
  std::filesystem::resize_file(dir.write("huge.seam", ""), 100u << 20);  // sparse: no disk used
  CommandResult r = lint({path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, path +
                       ": error[E0002]: file is 104857600 bytes, over the limit of 1048576 bytes\n\n"
                       "1 error, 0 warnings\n");
}

TEST(CliLint, DeepNestingIsAnErrorNotACrash) {
  TempDir dir;
  std::string text = "use cuda\nrule r\n    on cuda.malloc where " + std::string(10000, '(') + "size > 1" +
                     std::string(10000, ')') + "\n    alert \"x\"\n";
  std::string path = dir.write("deep.seam", text);
  CommandResult r = lint({path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find(path + ":3:"), std::string::npos) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("error[E0003]"), std::string::npos) << r.out.substr(0, 400);
}

}  // namespace
