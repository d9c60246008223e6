#include "unit/check_support.hpp"

#include "compiler/diag/render.hpp"
#include "compiler/parse/parser.hpp"

#include <optional>

namespace seam::test {

// The files are read from memory through the loader's ReadSource, so that they are classified
// as seam classifies files on disk (a file declaring `module` is a module, and hides the
// stdlib's module of that name).
check::Program check_files(const std::vector<TextFile>& files,
                           const std::vector<check::RuleToggle>& toggles) {
  check::LoadOptions options;
  options.stdlib_dirs = {SEAM_SOURCE_DIR "/stdlib"};
  options.read = [&files](const std::string& path, diag::Diagnostics& diags) -> std::optional<std::string> {
    for (const TextFile& f : files)
      if (f.path == path) return f.text;
    return check::read_file(path, parse::Limits{}, diags);
  };
  std::vector<std::string> paths;
  for (const TextFile& f : files) paths.push_back(f.path);
  check::Program program = check::load(paths, options);
  program.toggles = toggles;
  check::check(program);
  return program;
}

std::string lint_files(const std::vector<TextFile>& files, const std::vector<check::RuleToggle>& toggles) {
  check::Program program = check_files(files, toggles);
  // Only the test's own files: the stdlib's health has its own test.
  diag::Diagnostics mine;
  for (const diag::Diagnostic& d : program.diagnostics.all()) {
    if (d.path.rfind(SEAM_SOURCE_DIR "/stdlib/", 0) == 0) continue;
    diag::Diagnostic& copy = d.severity == diag::Severity::Warning ? mine.warning(d.code, d.range, d.message)
                             : d.range.valid()                     ? mine.error(d.code, d.range, d.message)
                                               : mine.file_error(d.code, d.path, d.message);
    copy.hints = d.hints;
  }
  return diag::render_text(mine);
}

std::string lint_text(const std::string& text) {
  return lint_files({{"rules/a.seam", text}});
}

}  // namespace seam::test
