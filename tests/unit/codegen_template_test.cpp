#include <gtest/gtest.h>

#include <stdexcept>

#include "compiler/codegen/c_escape.hpp"
#include "compiler/codegen/template.hpp"

namespace seam::codegen {
namespace {

TEST(CodegenTemplate, ReplacesEveryHole) {
  EXPECT_EQ(expand("a {{x}} b {{y}}{{x}}", {{"x", "1"}, {"y", "2"}}), "a 1 b 21");
}

TEST(CodegenTemplate, AHoleWithoutAValueIsABugInSeam) {
  EXPECT_THROW(expand("{{missing}}", {}), std::logic_error);
  EXPECT_THROW(fragment("no_such_fragment.c.tmpl", {}), std::logic_error);
}

TEST(CodegenTemplate, EveryShippedFragmentExpandsWithItsDocumentedValues) {
  EXPECT_NO_THROW(fragment("state_clear.c.tmpl", {{"state", "s"}, {"map", "m"}, {"key", "tid"}}));
}

TEST(CEscape, IdentifiersAreStrict) {
  EXPECT_TRUE(is_c_identifier("prev_pid"));
  EXPECT_FALSE(is_c_identifier("1abc"));
  EXPECT_FALSE(is_c_identifier("a-b"));
  EXPECT_FALSE(is_c_identifier(""));
  EXPECT_FALSE(is_c_identifier("a b"));
}

TEST(CEscape, StringLiteralsEscapeEverythingThatCouldEscape) {
  EXPECT_EQ(c_string_literal("python3"), "\"python3\"");
  EXPECT_EQ(c_string_literal("a\"b"), "\"a\\042b\"");
  EXPECT_EQ(c_string_literal("*/"), "\"\\052/\"");
  EXPECT_EQ(c_string_literal("/*"), "\"/\\052\"");
  EXPECT_EQ(c_string_literal("\n#%\\"), "\"\\012\\043\\045\\134\"");
}

}  // namespace
}  // namespace seam::codegen
