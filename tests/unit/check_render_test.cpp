// The three renderings of diagnostics: text (gutter, underline, hints, summary), JSON, GitHub.
#include <gtest/gtest.h>

#include "compiler/diag/render.hpp"

namespace {

using namespace seam;

TEST(CheckRender, CleanPrintsNothing) {
  diag::Diagnostics d;
  EXPECT_EQ(diag::render_text(d), "");
  EXPECT_EQ(diag::render_github(d), "");
  EXPECT_EQ(diag::render_json(d).dump(), R"({"diagnostics":[],"errors":0,"warnings":0})");
}

TEST(CheckRender, GutterWidensWithLineNumberAndHintsAlign) {
  std::string text(1233, '\n');
  text += "x = 1\n";
  SourceFile f("big.seam", text);
  diag::Diagnostics d;
  d.warning(diag::Code::UnusedUse, {&f, 1233, 1234}, "w").hints = {"one", "two"};
  EXPECT_EQ(diag::render_text(d),
            "big.seam:1234:1: warning[W0003]: w\n"
            "    1234 | x = 1\n"
            "         | ^\n"
            "         = hint: one\n"
            "         = hint: two\n"
            "\n"
            "0 errors, 1 warning\n");
}

TEST(CheckRender, MultiLineRangeUnderlinesToEndOfFirstLineAndTabsKept) {
  SourceFile f("t.seam", "\tab cd\nef\n");
  diag::Diagnostics d;
  d.error(diag::Code::SyntaxError, {&f, 4, 9}, "m");
  EXPECT_EQ(diag::render_text(d),
            "t.seam:1:5: error[E0001]: m\n"
            "    1 | \tab cd\n"
            "      | \t   ^~\n"
            "\n"
            "1 error, 0 warnings\n");
}

TEST(CheckRender, EmptyRangeGetsOneCaret) {
  SourceFile f("t.seam", "abc");
  diag::Diagnostics d;
  d.error(diag::Code::SyntaxError, {&f, 3, 3}, "expected ')'");
  EXPECT_EQ(diag::render_text(d),
            "t.seam:1:4: error[E0001]: expected ')'\n"
            "    1 | abc\n"
            "      |    ^\n"
            "\n"
            "1 error, 0 warnings\n");
}

TEST(CheckRender, FileLevelHasNoPosition) {
  diag::Diagnostics d;
  d.file_error(diag::Code::UnreadableFile, "gone.seam", "cannot read: No such file or directory");
  d.file_error(diag::Code::UnreadableFile, "b.seam", "x");
  EXPECT_EQ(diag::render_text(d),
            "gone.seam: error[E0004]: cannot read: No such file or directory\n\n"
            "b.seam: error[E0004]: x\n\n"
            "2 errors, 0 warnings\n");
  nlohmann::json j = diag::render_json(d);
  EXPECT_TRUE(j["diagnostics"][0]["line"].is_null());
  EXPECT_EQ(j["diagnostics"][0]["name"], "unreadable-file");
  EXPECT_EQ(diag::render_github(d).substr(0, 62),
            "::error file=gone.seam,title=E0004 unreadable-file::cannot rea");
}

TEST(CheckRender, ColorWrapsSeverityAndUnderline) {
  SourceFile f("t.seam", "abc");
  diag::Diagnostics d;
  d.error(diag::Code::SyntaxError, {&f, 0, 1}, "m");
  std::string out = diag::render_text(d, true);
  EXPECT_NE(out.find("\x1b[1;31merror[E0001]"), std::string::npos) << out;
  EXPECT_NE(out.find("\x1b[1;31m^"), std::string::npos) << out;
}

TEST(CheckRender, GithubEscapesDataAndProperties) {
  SourceFile f("a,b:c.seam", "line one\nline two\n");
  diag::Diagnostics d;
  d.warning(diag::Code::RuleNeverFires, {&f, 9, 13}, "100% sure\r\nnot").hints = {"h1", "h2"};
  EXPECT_EQ(diag::render_github(d),
            "::warning file=a%2Cb%3Ac.seam,line=2,col=1,endLine=2,endColumn=5,title=W0002 rule-never-fires::"
            "100%25 sure%0D%0Anot (h1; h2)\n");
}

TEST(CheckRender, JsonHasEveryField) {
  SourceFile f("r.seam", "abc\ndef\n");
  diag::Diagnostics d;
  d.error(diag::Code::UnknownEvent, {&f, 5, 7}, "unknown event 'ef'").hints = {"did you mean x?"};
  EXPECT_EQ(diag::render_json(d),
            nlohmann::json::parse(R"({"diagnostics":[{"file":"r.seam","line":2,"column":2,"end_line":2,
              "end_column":4,"severity":"error","code":"E0103","name":"unknown-event",
              "message":"unknown event 'ef'","hints":["did you mean x?"]}],"errors":1,"warnings":0})"));
}

}  // namespace
