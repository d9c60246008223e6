// The operator's command line: rules on standard input, the tuned rules `seam lint` shows,
// --disable/--enable, one value per -o, --listen none, and the loud failures of `seam run`
// that need no BPF (a --pid that does not exist, nothing to run).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "support/test_support.hpp"

namespace {

using seam::test::CommandResult;
using seam::test::run_command;
using seam::test::TempDir;

const std::string kSource = SEAM_SOURCE_DIR;

CommandResult seam_cmd(std::vector<std::string> args, const std::string& stdin_text = {}) {
  args.insert(args.begin(), SEAM_EXE);
  return run_command(args, stdin_text);
}

TEST(CliOperator, LintReadsStandardInput) {
  CommandResult r = seam_cmd({"lint", "-"}, "use cuda\nrule r on cuda.stream_synk alert \"x\"\n");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("-:2:11: error[E0103]: unknown event 'cuda.stream_synk'\n", 0), 0u) << r.out;
  r = seam_cmd({"lint", "-"}, "use cuda\nrule r on cuda.stream_sync alert \"x\"\n");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(CliOperator, LintShowsTheEffectiveRule) {
  TempDir dir;
  std::string tune = dir.write("local/tune.seam",
                               "override rule futex_wait_slow\n"
                               "    threshold 20ms\n"
                               "    except comm == \"batchjob\"\n"
                               "    alert warning\n"
                               "disable rule syscall_slow\n");
  std::string pack = kSource + "/rules/syscalls.seam";
  CommandResult r = seam_cmd({"lint", pack, tune});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, pack + ":12: rule futex_wait_slow as tuned by " + tune + ":1:\n" +
                       "    on syscalls.futex\n"
                       "    where duration > 20ms and (op & 0x7f == 0 or op & 0x7f == 6 or op & 0x7f == 9)\n"
                       "    except comm == \"batchjob\"\n"
                       "    alert warning \"thread {comm} waited {duration} in futex\"\n"
                       "    limit 10 per 1m\n"
                       "    tags syscalls, waits\n" +
                       pack + ":27: rule syscall_slow is disabled by " + tune + ":5\n");
}

TEST(CliOperator, LintDisableByTagAndUnknownNames) {
  std::string pack = kSource + "/rules/syscalls.seam";
  CommandResult r = seam_cmd({"lint", pack, "--disable", "tag:waits"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, pack + ":12: rule futex_wait_slow is disabled by --disable tag:waits\n");
  r = seam_cmd({"lint", pack, "--disable", "futex_wait_slwo"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            "--disable futex_wait_slwo: error[E0114]: no rule is named 'futex_wait_slwo'\n"
            "  = hint: did you mean futex_wait_slow?\n\n1 error, 0 warnings\n");
}

TEST(CliOperator, RunPidThatDoesNotExistIsAnError) {
  CommandResult r = seam_cmd({"run", "--pid", "999999999", kSource + "/rules/syscalls.seam"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "seam run: --pid 999999999: no such process\n");
}

TEST(CliOperator, RunWithNothingToRunIsAnError) {
  TempDir dir;
  std::string tune = dir.write("rules/tune.seam", "use syscalls\n");
  CommandResult r = seam_cmd({"run", dir.path() + "/rules", "--listen", "none"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("seam run: no rule or metric to run in " + dir.path() + "/rules\n"), std::string::npos)
      << r.err;
  // Everything disabled is nothing to run too.
  r = seam_cmd({"run", kSource + "/rules/syscalls.seam", "--disable", "tag:syscalls", "--listen", "off"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("no rule or metric to run"), std::string::npos) << r.err;
}

TEST(CliOperator, OutputTakesOneValue) {
  // `-o json:PATH FILE`: FILE is a rule path, not a second output (which would be refused as
  // an unknown output kind); the run then fails for having nothing to run in it.
  TempDir dir;
  std::string empty = dir.write("rules/empty.seam", "use syscalls\n");
  CommandResult r = seam_cmd({"run", "-o", "json:" + dir.path() + "/out.jsonl", empty, "--listen", "none"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("no rule or metric to run in " + empty), std::string::npos) << r.err;
}

TEST(CliOperator, CompletionAndManPageComeFromTheHelpText) {
  CommandResult r = seam_cmd({"completion", "bash"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("complete -o filenames -F _seam seam"), std::string::npos) << r.out;
  size_t run = r.out.find("    run) words=\"");
  ASSERT_NE(run, std::string::npos) << r.out;
  std::string run_words = r.out.substr(run, r.out.find('\n', run) - run);
  std::replace(run_words.begin(), run_words.end(), '"', ' ');  // the list's quotes end words too
  for (const char* flag :
       {"--dry-run", "--disable", "--enable", "-e", "-c", "--report", "--strict", "--listen"})
    EXPECT_NE(run_words.find(std::string(" ") + flag + " "), std::string::npos) << flag << ": " << run_words;
  r = seam_cmd({"man"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(".TH SEAM 1\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(".SS seam run\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(".B \\-\\-dry\\-run\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(".SS seam stdlib gen\n"), std::string::npos) << r.out;
}

TEST(CliOperator, VersionNamesTheRevisionLibbpfAndClang) {
  CommandResult r = seam_cmd({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(std::string("seam ") + SEAM_TEST_VERSION + " (git ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\nlibbpf "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" loaded\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nclang at build: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nclang at run time: "), std::string::npos) << r.out;
}

}  // namespace
