#pragma once
// Shared by the stdlib_gen tests: run the generator on a header, and check its text as a module.
#include <string>

#include "compiler/check/check.hpp"
#include "compiler/diag/render.hpp"
#include "compiler/stdlib_gen/stdlib_gen.hpp"
#include "support/test_support.hpp"

namespace seam::test {

inline stdlib_gen::GenResult gen(const std::string& header, const std::vector<std::string>& globs,
                                 const std::string& library = "fakert=libfakert.so*") {
  stdlib_gen::GenOptions options;
  options.header = header;
  Result<stdlib_gen::LibrarySpec> spec = stdlib_gen::parse_library_spec(library);
  if (spec) options.library_alias = spec->alias, options.library_pattern = spec->pattern;
  options.function_globs = globs;
  return stdlib_gen::generate(options);
}

inline std::string fixture_header() {
  return std::string(SEAM_SOURCE_DIR) + "/tests/fixtures/gen/fake_runtime.h";
}

// The checker's text output for `module_text` loaded as a module file next to the repository's
// stdlib, with `rules` (may be empty) as a rule file that uses it; empty when there is nothing to say.
inline std::string check_output(const std::string& module_text, const std::string& rules = "") {
  TempDir dir;
  std::vector<std::string> paths = {dir.write("generated.seam", module_text)};
  if (!rules.empty()) paths.push_back(dir.write("rules.seam", rules));
  check::LoadOptions load;
  load.stdlib_dirs = {std::string(SEAM_SOURCE_DIR) + "/stdlib"};
  check::Program program = check::load(paths, load);
  check::check(program);
  return program.diagnostics.all().empty() ? "" : diag::render_text(program.diagnostics, false);
}

}  // namespace seam::test
