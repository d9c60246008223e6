#include "compiler/source/source_file.hpp"

#include <gtest/gtest.h>

namespace seam {
namespace {

TEST(SourceFile, LineAndColumnAreOneBased) {
  SourceFile f("a.seam", "ab\ncd\n\nef");
  EXPECT_EQ(f.line_col(0).line, 1u);
  EXPECT_EQ(f.line_col(0).column, 1u);
  EXPECT_EQ(f.line_col(4).line, 2u);
  EXPECT_EQ(f.line_col(4).column, 2u);
  EXPECT_EQ(f.line_col(7).line, 4u);
  EXPECT_EQ(f.line_text(2), "cd");
  EXPECT_EQ(f.line_text(3), "");
  EXPECT_EQ(f.line_text(4), "ef");
  EXPECT_EQ(f.line_text(5), "");
}

}  // namespace
}  // namespace seam
