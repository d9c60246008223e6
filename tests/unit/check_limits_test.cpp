// What `seam lint` accepts, `seam run` can load: the documented limits (docs/language.md,
// "Limits") with the exact text lint prints past them, and bytes a rule file must not hold.
#include <gtest/gtest.h>

#include "compiler/diag/render.hpp"
#include "unit/check_support.hpp"

namespace {

using seam::test::lint_text;

std::string chain(const char* op, int terms) {
  std::string s = "address == 0";
  for (int i = 1; i < terms; ++i) s += std::string(" ") + op + " address == " + std::to_string(i);
  return s;
}

std::string rule_with(const std::string& where) {
  return "use mem\nrule r on mem.page_fault where " + where + " alert \"x\"\n";
}

TEST(CheckLimits, AFlatChainIsNotNesting) {
  EXPECT_EQ(lint_text(rule_with(chain("or", 65))), "");
  EXPECT_EQ(lint_text(rule_with(chain("and", 1024))), "");
  std::string too_long = lint_text(rule_with(chain("or", 1025)));
  EXPECT_NE(
      too_long.find("error[E0003]: expression has more than 1024 operands in its chains of `and`, `or` and "
                    "operators"),
      std::string::npos)
      << too_long.substr(0, 400);
}

TEST(CheckLimits, SixtyFourParenthesesAreAcceptedSixtyFiveAreNot) {
  auto parens = [](int n) { return std::string(n, '(') + "address > 1" + std::string(n, ')'); };
  EXPECT_EQ(lint_text(rule_with(parens(64))), "");
  EXPECT_NE(lint_text(rule_with(parens(65))).find("error[E0003]: expression nests deeper than 64 levels"),
            std::string::npos);
  std::string nots;
  for (int i = 0; i < 64; ++i) nots += "not ";
  EXPECT_EQ(lint_text(rule_with(nots + "address > 1")), "");
}

TEST(CheckLimits, DiagnosticsAreCappedPerFileWithACountOfTheRest) {
  std::string text = "use mem\n";
  for (int i = 0; i < 150; ++i) text += "rule r" + std::to_string(i) + " on mem.no_such alert \"x\"\n";
  // The program's own list (lint_text re-adds each diagnostic, which would cap again).
  std::string out = seam::diag::render_text(seam::test::check_files({{"rules/a.seam", text}}).diagnostics);
  size_t shown = 0;
  for (size_t at = 0; (at = out.find("error[E0103]", at)) != std::string::npos; ++at) ++shown;
  EXPECT_EQ(shown, 100u);
  EXPECT_NE(out.find("rules/a.seam: note: 50 more diagnostics not shown (at most 100 per file)\n"),
            std::string::npos)
      << out.substr(out.size() > 300 ? out.size() - 300 : 0);
  EXPECT_NE(out.find("150 errors, 0 warnings\n"), std::string::npos);
}

TEST(CheckLimits, RulesPerEventArePastTheVerifiersLimit) {
  std::string text = "use mem\n";
  for (size_t i = 0; i <= seam::check::kMaxRulesPerEvent; ++i)
    text += "rule r" + std::to_string(i) + " on mem.page_fault where address > " + std::to_string(i) +
            " alert \"x\"\n";
  std::string out = lint_text(text);
  std::string last = "r" + std::to_string(seam::check::kMaxRulesPerEvent);
  EXPECT_NE(out.find("rules/a.seam:202:6: error[E0008]: rule '" + last + "' is past the limit of " +
                     std::to_string(seam::check::kMaxRulesPerEvent) +
                     " rules and metrics on event 'mem.page_fault' in all the rule files together"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("1 error, 0 warnings"), std::string::npos) << out;
}

// Every file's rules on one event are one program: counted across the files, in their order,
// and reported at the rule past the limit, in its own file.
TEST(CheckLimits, RulesPerEventAreCountedAcrossFiles) {
  std::vector<seam::test::TextFile> files;
  auto file_of = [](size_t first, size_t count) {
    std::string text = "use mem\n";
    for (size_t i = first; i < first + count; ++i)
      text += "rule r" + std::to_string(i) + " on mem.page_fault where address > " + std::to_string(i) +
              " alert \"x\"\n";
    return text;
  };
  size_t half = seam::check::kMaxRulesPerEvent / 2;
  files.push_back({"rules/a.seam", file_of(0, half)});
  files.push_back({"rules/b.seam", file_of(half, seam::check::kMaxRulesPerEvent - half)});
  EXPECT_EQ(lint_files(files), "");  // 200 together: at the limit
  files.push_back({"rules/c.seam", file_of(seam::check::kMaxRulesPerEvent, 2) +
                                       "metric faults on mem.page_fault count by pid\n"});
  std::string out = lint_files(files);
  std::string past = "r" + std::to_string(seam::check::kMaxRulesPerEvent);
  EXPECT_NE(out.find("rules/c.seam:2:6: error[E0008]: rule '" + past + "' is past the limit of " +
                     std::to_string(seam::check::kMaxRulesPerEvent) +
                     " rules and metrics on event 'mem.page_fault' in all the rule files together\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("hint: every file's rules on that event run in one BPF program"), std::string::npos)
      << out;
  EXPECT_NE(out.find("1 error, 0 warnings"), std::string::npos) << out;  // once, at the first past it
  // Rules on another event do not count against this one.
  files.pop_back();
  files.push_back({"rules/c.seam", "use mem\nrule other on mem.compaction alert \"x\"\n"});
  EXPECT_EQ(lint_files(files), "");
}

TEST(CheckLimits, RulesPerFile) {
  const char* events[] = {
      "mem.page_fault", "mem.direct_reclaim", "mem.memcg_reclaim", "mem.compaction",
      "sched.offcpu",   "sched.runq",         "sched.migrate"};  // under the per-event limit
  std::string text = "use mem, sched\n";
  for (size_t i = 0; i <= seam::check::kMaxRulesPerFile; ++i)
    text += "rule r" + std::to_string(i) + " on " + events[i % 7] + " alert \"x\"\n";
  std::string out = lint_text(text);
  EXPECT_NE(out.find("error[E0008]: rule 'r" + std::to_string(seam::check::kMaxRulesPerFile) +
                     "' is past the limit of " + std::to_string(seam::check::kMaxRulesPerFile) +
                     " rules and metrics in one file"),
            std::string::npos)
      << out.substr(0, 600);
}

TEST(CheckLimits, BadCharactersAreNamed) {
  std::string out = lint_text(
      "\xef\xbb\xbfuse mem\nrule r on mem.page_fault where comm == \"a\xe2\x80\xae"
      "b\" alert \"x" +
      std::string(1, '\0') + "\"\n");
  EXPECT_NE(out.find("rules/a.seam:1:1: error[E0007]: the file starts with a UTF-8 byte-order mark"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("error[E0007]: bidirectional control U+202E RIGHT-TO-LEFT OVERRIDE in the file"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("error[E0007]: NUL byte in the file"), std::string::npos) << out;
  EXPECT_NE(out.find("3 errors, 0 warnings"), std::string::npos) << out;
}

TEST(CheckLimits, ANameConstantLongerThanTheKernelKeepsNeverMatches) {
  EXPECT_EQ(lint_text(rule_with("comm == \"fifteen_bytes__\"")), "");
  std::string out = lint_text(rule_with("comm == \"sixteen_bytes___\""));
  EXPECT_NE(out.find("warning[W0002]: a name is at most 15 bytes, so this 16-byte constant never matches"),
            std::string::npos)
      << out;
}

TEST(CheckLimits, LibrariesThatCanNeverMatch) {
  std::string out = lint_text("library local = \"lib/libx.so\"\n");
  EXPECT_NE(out.find("warning[W0006]: library 'local' is declared in a rule file, where no probe can use it"),
            std::string::npos)
      << out;
  EXPECT_NE(
      out.find(
          "warning[W0006]: a library pattern matches a file's name, never its path: this one, with a '/', "
          "never matches"),
      std::string::npos)
      << out;
}

}  // namespace
