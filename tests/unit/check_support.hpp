#pragma once
// Checks rule text in memory, as if it were the file rules/a.seam next to the repository's
// stdlib, and returns what `seam lint` would print, so that tests pin the exact output.
#include <string>
#include <utility>
#include <vector>

#include "compiler/check/check.hpp"

namespace seam::test {

struct TextFile {
  std::string path;
  std::string text;
};

// Loads the stdlib, adds the files (a file declaring `module` counts as a module), checks all.
check::Program check_files(const std::vector<TextFile>& files,
                           const std::vector<check::RuleToggle>& toggles = {});

// render_text() of check_files({{"rules/a.seam", text}}).
std::string lint_text(const std::string& text);
std::string lint_files(const std::vector<TextFile>& files,
                       const std::vector<check::RuleToggle>& toggles = {});

}  // namespace seam::test
