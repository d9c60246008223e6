#include "unit/check_support.hpp"

#include "compiler/diag/render.hpp"
#include "compiler/parse/parser.hpp"

namespace seam::test {

check::Program check_files(const std::vector<TextFile>& files,
                           const std::vector<check::RuleToggle>& toggles) {
  check::LoadOptions options;
  options.stdlib_dirs = {SEAM_SOURCE_DIR "/stdlib"};
  check::Program program = check::load({}, options);
  for (const TextFile& f : files) {
    program.sources.push_back(std::make_unique<SourceFile>(f.path, f.text));
    ast::File file = parse::parse_file(*program.sources.back(), program.diagnostics);
    if (file.module())
      program.modules.push_back(std::move(file));
    else
      program.rule_files.push_back(std::move(file));
  }
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
