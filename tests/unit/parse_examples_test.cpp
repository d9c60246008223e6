// The examples from the language description parse, and the grammar has no PEG problems.
#include <tao/pegtl/contrib/analyze.hpp>

#include <filesystem>

#include "support/test_support.hpp"

#include "compiler/parse/grammar.hpp"
#include "unit/parse_test_util.hpp"

namespace seam::parse::test {
namespace {

TEST(ParseGrammar, AnalyzeFindsNoProblems) {
  EXPECT_EQ(tao::pegtl::analyze<grammar::file>(), 0u);
  EXPECT_EQ(tao::pegtl::analyze<grammar::one_decl>(), 0u);
  EXPECT_EQ(tao::pegtl::analyze<grammar::decl_start>(), 0u);
}

TEST(ParseExamples, CudaModule) {
  auto p = parse(R"(module cuda
library cudart = "libcudart.so*"
span stream_sync = cudart:cudaStreamSynchronize | cudart:cudaStreamSynchronize_ptsz
    (stream: ptr) -> (ret: i32)
span malloc = cudart:cudaMalloc (devptr: ptr, size: bytes) -> (ret: i32)
alias cudaStreamSynchronize = stream_sync
)");
  EXPECT_FALSE(p->diags.has_errors()) << p->dump();
  ASSERT_EQ(p->file.decls.size(), 5u);
}

TEST(ParseExamples, RulesFile) {
  // The one-liner, then the issue's long-form example (shared with the checker's tests).
  std::string text = seam::test::read_file(SEAM_SOURCE_DIR "/tests/fixtures/examples/long_form.seam");
  text.replace(text.find("use cuda, python\n"), 17,
               "use cuda, python\ncudaStreamSynchronize > 10ms while gil_held -> alert with ustack\n");
  auto p = parse(text);
  EXPECT_FALSE(p->diags.has_errors()) << p->dump();
  EXPECT_EQ(p->file.decls.size(), 9u);
}

// Every shipped module and rule file parses without a diagnostic.
TEST(ParseExamples, StdlibAndRulePacks) {
  size_t files = 0;
  for (const char* dir : {"stdlib", "rules"}) {
    std::filesystem::path root = std::filesystem::path(SEAM_SOURCE_DIR) / dir;
    if (!std::filesystem::exists(root)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (entry.path().extension() != ".seam") continue;
      ++files;
      auto p = parse(seam::test::read_file(entry.path().string()));
      EXPECT_FALSE(p->diags.has_errors()) << entry.path() << "\n" << p->dump();
      EXPECT_FALSE(p->file.decls.empty()) << entry.path();
      if (std::string(dir) == "stdlib") {
        EXPECT_NE(p->file.module(), nullptr) << entry.path();
      }
    }
  }
  EXPECT_GT(files, 0u);
}

// The ```seam examples in docs/language.md parse as written.
TEST(ParseExamples, LanguageDocumentation) {
  std::string doc = seam::test::read_file(std::string(SEAM_SOURCE_DIR) + "/docs/language.md");
  size_t blocks = 0;
  for (size_t at = doc.find("```seam\n"); at != std::string::npos; at = doc.find("```seam\n", at)) {
    at += 8;
    size_t end = doc.find("```", at);
    ASSERT_NE(end, std::string::npos);
    ++blocks;
    auto p = parse(doc.substr(at, end - at));
    EXPECT_FALSE(p->diags.has_errors()) << doc.substr(at, end - at) << "\n" << p->dump();
    at = end + 3;
  }
  EXPECT_GE(blocks, 8u);
}

}  // namespace
}  // namespace seam::parse::test
