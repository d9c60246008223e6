#include "cli/compile_unit.hpp"

#include <sstream>

#include "compiler/build/content_hash.hpp"
#include "compiler/diag/render.hpp"
#include "runtime/safety/rule_file_safety.hpp"

namespace seam::cli {

namespace {

// The line a unit that failed is reported by, from what failed (never by searching the printed
// text): the first error diagnostic ("file:line:col: error[E...]: ..."), else the compiler's
// internal error, else clang's first error, else everything printed (an unsafe file's reason).
// It is always a line of `printed` when `printed` is not empty (session_reload.cpp relies on it).
std::string first_error(const CompiledRules& rules, const build::BuildResult& built,
                        const std::string& printed) {
  for (const diag::Diagnostic& d : rules.program.diagnostics.all())
    if (d.severity == diag::Severity::Error) return diag::render_headline(d);
  if (!rules.internal_error.empty()) return rules.internal_error;
  if (!built.errors.empty()) return clang_error_line(built.errors.front());
  std::string all = printed;
  while (!all.empty() && all.back() == '\n') all.pop_back();
  return all;
}

// The hash of the text the unit was compiled from, as check::load read it: hashing the file
// apart from that read could pair one version's hash with another's program, and a reload would
// then miss an edit. A file the loader did not read (unreadable, too large) is hashed as it is.
std::string compiled_hash(const check::Program& program, const std::string& path) {
  for (const auto& source : program.sources)
    if (source->path() == path) return build::ContentHash().add(source->text()).hex();
  return build::hash_file(path);
}

}  // namespace

runtime::UnitCompileResult compile_unit(const std::string& path, const UnitOptions& options, int* exit_code) {
  runtime::UnitCompileResult out;
  int code = 1;
  CompileOptions compile = options.compile;
  compile.paths = {path};
  for (const std::string& module : options.module_files)
    if (module != path) compile.paths.push_back(module);
  for (const std::string& tuning : options.tuning_files)
    if (tuning != path) compile.overlay_paths.push_back(tuning);
  std::ostringstream err;
  CompiledRules rules = compile_rules(compile, err);
  out.hash = compiled_hash(rules.program, path);
  if (rules.ok) {
    // Rule and stdlib files become kernel programs run as root: refuse any that someone other
    // than root could have changed.
    for (const auto& source : rules.program.sources)
      if (auto reason =
              options.allow_insecure_rules ? std::nullopt : runtime::insecure_reason(source->path())) {
        err << "seam run: " << *reason << "\n";
        rules.ok = false;
        code = 2;
      }
  }
  build::BuildResult built;
  if (rules.ok) built = build_rules(rules, err);
  out.diagnostics = err.str();
  if (!rules.ok || !built.ok) {
    out.error = first_error(rules, built, out.diagnostics);
    if (out.error.empty()) out.error = path + ": cannot compile";
    if (exit_code) *exit_code = code;
    return out;
  }
  auto unit = std::make_unique<runtime::UnitBuild>();
  unit->path = path;
  unit->hash = out.hash;
  unit->plan = std::move(rules.lowered.plan);
  unit->object = std::move(built.object);
  unit->compile_ms = built.compile_ms;
  out.build = std::move(unit);
  if (exit_code) *exit_code = 0;
  return out;
}

}  // namespace seam::cli
