#pragma once
// Parses, checks, lowers and generates rule text for codegen tests: the text goes to a temp
// file, the repo's stdlib/ provides the modules.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/check/availability.hpp"
#include "compiler/check/check.hpp"
#include "compiler/check/program.hpp"
#include "compiler/codegen/generate.hpp"
#include "compiler/diag/render.hpp"
#include "compiler/lower/lower.hpp"
#include "support/test_support.hpp"

namespace seam::test {

struct Compiled {
  std::unique_ptr<TempDir> dir;
  check::Program program;
  plan::Program lowered;
  codegen::Generated generated;
  std::string diagnostics;  // rendered text, empty when clean
};

// Several rule files compiled together into one object, as `seam build` does: name -> text.
// `missing`: as `seam run` asks the kernel which probes it lacks (compiler/check/availability.hpp).
// `dir`: where the files are written (compiles that must see the same paths share one).
inline Compiled compile_files_in(TempDir& dir, const std::vector<std::pair<std::string, std::string>>& files,
                                 const codegen::Options& options = {},
                                 const lower::Options& lower_options = {},
                                 const check::ProbeAvailability& missing = {}) {
  Compiled c;
  std::vector<std::string> paths;
  for (const auto& [name, text] : files) paths.push_back(dir.write(name, text));
  check::LoadOptions load;
  load.stdlib_dirs = {std::string(SEAM_SOURCE_DIR) + "/stdlib"};
  c.program = check::load(paths, load);
  if (!c.program.diagnostics.has_errors()) check::check(c.program);
  if (c.program.diagnostics.has_errors()) {
    c.diagnostics = diag::render_text(c.program.diagnostics);
    return c;
  }
  check::mark_unavailable(c.program, missing);
  lower::Input input;
  for (const ast::File& f : c.program.modules) input.modules.push_back(&f);
  for (const ast::File& f : c.program.rule_files) input.rule_files.push_back(&f);
  c.lowered = lower::lower(input, lower_options);
  c.generated = codegen::generate(c.lowered, options);
  return c;
}

inline Compiled compile_files(const std::vector<std::pair<std::string, std::string>>& files,
                              const codegen::Options& options = {}, const lower::Options& lower_options = {},
                              const check::ProbeAvailability& missing = {}) {
  auto dir = std::make_unique<TempDir>();
  Compiled c = compile_files_in(*dir, files, options, lower_options, missing);
  c.dir = std::move(dir);
  return c;
}

inline Compiled compile_text(const std::string& rules, const codegen::Options& options = {},
                             const lower::Options& lower_options = {},
                             const check::ProbeAvailability& missing = {}) {
  return compile_files({{"rules.seam", rules}}, options, lower_options, missing);
}

// Lowering as on a kernel whose feature probe found every program kind, raw tracepoints only
// when `raw_tracepoint`.
inline lower::Options kernel_with_raw_tracepoints(bool raw_tracepoint) {
  lower::Options o;
  o.has_feature = [raw_tracepoint](plan::Feature f) {
    return f != plan::Feature::RawTracepoint || raw_tracepoint;
  };
  return o;
}

// The text of the generated function `program` (from its SEC line to its closing brace).
inline std::string program_text(const std::string& c_source, const std::string& program) {
  size_t at = c_source.find("int " + program + "(");
  if (at == std::string::npos) return {};
  size_t sec = c_source.rfind("SEC(", at);
  size_t end = c_source.find("\n}\n", at);
  return c_source.substr(sec, end == std::string::npos ? std::string::npos : end + 3 - sec);
}

}  // namespace seam::test
