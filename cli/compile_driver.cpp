#include "cli/compile_driver.hpp"

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "cli/kernel_probes.hpp"
#include "cli/tuning_files.hpp"
#include "compiler/build/content_hash.hpp"
#include "compiler/check/check.hpp"
#include "compiler/diag/render.hpp"
#include "runtime/run/parallel_for.hpp"
#include "runtime/run/reload_plan.hpp"
#include "runtime/safety/rule_file_safety.hpp"

namespace seam::cli {

namespace {

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::string real_path(const std::string& path) {
  std::error_code ec;
  return std::filesystem::weakly_canonical(path, ec).string();
}

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

// The hash of the text the unit was compiled from, as the loader read it: hashing the file
// apart from that read could pair one version's hash with another's program, and a reload would
// then miss an edit. A file the loader did not read (unreadable, too large) is hashed as it is.
std::string compiled_hash(const check::Program& program, const std::string& path) {
  for (const auto& source : program.sources)
    if (source->path() == path) return build::ContentHash().add(source->text()).hex();
  return build::hash_file(path);
}

// The user's files (as the driver collected them) that declare a module rather than rules.
std::vector<std::string> user_modules(const check::Program& program, const std::vector<std::string>& files) {
  std::vector<std::string> out;
  for (const ast::File& module : program.modules) {
    std::string canonical = real_path(module.source->path());
    for (const std::string& f : files)
      if (real_path(f) == canonical) out.push_back(f);
  }
  return out;
}

runtime::UnitCompileResult unit_result(const std::string& path, std::string hash, CompiledRules& rules,
                                       build::BuildResult& built, std::string printed) {
  runtime::UnitCompileResult out;
  out.hash = std::move(hash);
  out.diagnostics = rules.program.diagnostics;
  out.printed = std::move(printed);
  if (!rules.ok || !built.object) {
    out.error = first_error(rules, built, out.printed);
    if (out.error.empty()) out.error = path + ": cannot compile";
    return out;
  }
  auto unit = std::make_unique<runtime::UnitBuild>();
  unit->path = path;
  unit->hash = out.hash;
  unit->plan = std::move(rules.lowered.plan);
  unit->object = std::move(*built.object);
  unit->compile_ms = built.compile_ms;
  out.build = std::move(unit);
  return out;
}

}  // namespace

CompileDriver::CompileDriver(DriverOptions options, check::ReadSource read)
    : options_(std::move(options)), read_(std::move(read)) {
  if (!read_)
    read_ = [](const std::string& path, diag::Diagnostics& diags) {
      return check::read_file(path, parse::Limits{}, diags);
    };
}

std::shared_ptr<const check::StdlibSources> CompileDriver::stdlib() const {
  std::call_once(stdlib_once_, [this] {
    std::vector<std::string> dirs = check::default_stdlib_dirs();
    dirs.insert(dirs.end(), options_.compile.extra_stdlib_dirs.begin(),
                options_.compile.extra_stdlib_dirs.end());
    stdlib_ = std::make_shared<const check::StdlibSources>(check::read_stdlib(dirs, read_));
  });
  return stdlib_;
}

check::Program CompileDriver::check_all() {
  files_ = runtime::rule_files(options_.compile.paths);
  check::LoadOptions load;
  load.stdlib = stdlib();
  load.read = read_;
  check::Program program = check::load(files_, load);
  program.toggles = options_.compile.toggles;
  check::check(program);
  return program;
}

CompiledRules CompileDriver::compile_all(std::ostream& err) {
  files_ = runtime::rule_files(options_.compile.paths);
  return compile(files_, {}, false, err);
}

CompiledRules CompileDriver::compile(const std::vector<std::string>& paths,
                                     const std::vector<std::string>& overlays, bool unit,
                                     std::ostream& err) const {
  CompiledRules out;
  check::LoadOptions load;
  load.stdlib = stdlib();
  load.read = read_;
  std::vector<std::string> all = paths;
  all.insert(all.end(), overlays.begin(), overlays.end());
  out.program = check::load(all, load);
  out.program.toggles = options_.compile.toggles;
  if (!out.program.diagnostics.has_errors()) check::check(out.program);
  // A unit is one file of several: a route may name an output another file declares, and an
  // override a rule of a third file; both are checked over every file at start.
  if (unit) out.program.diagnostics.drop(diag::Code::UnknownOutput);
  if (unit) out.program.diagnostics.drop(diag::Code::UnknownOverrideTarget);
  out.program.diagnostics.sort();
  if (!out.program.diagnostics.all().empty()) err << diag::render_text(out.program.diagnostics);
  if (out.program.diagnostics.has_errors()) return out;
  if (unit) check::mark_unavailable(out.program, options_.compile.probe_missing);

  lower::Input input;
  for (const ast::File& f : out.program.modules) input.modules.push_back(&f);
  std::vector<std::string> overlay_paths;
  overlay_paths.reserve(overlays.size());
  for (const std::string& o : overlays) overlay_paths.push_back(real_path(o));
  for (const ast::File& f : out.program.rule_files)
    if (!contains(overlay_paths, real_path(f.source->path()))) input.rule_files.push_back(&f);
  lower_and_generate(out, input, options_.compile.lower, err);
  return out;
}

void CompileDriver::lower_and_generate(CompiledRules& out, const lower::Input& input,
                                       const lower::Options& lower, std::ostream& err) const {
  out.ok = false;
  try {
    lower::Options options = lower;
    if (!options.has_tracepoint) options.has_tracepoint = has_tracepoint;  // per-syscall tracepoints here
    out.lowered = lower::lower(input, options);
    for (const std::string& u : out.lowered.unsupported) err << "seam: note: " << u << "\n";
    out.generated = codegen::generate(out.lowered, options_.compile.codegen);
  } catch (const std::logic_error& e) {  // a bug in seam: refuse the program rather than run it
    out.internal_error = std::string("seam: error: internal error: ") + e.what();
    err << out.internal_error << "\n";
    return;
  }
  out.ok = true;
}

CompiledRules CompileDriver::relower(CompiledRules&& rules, const lower::Options& lower,
                                     std::ostream& err) const {
  lower::Input input;
  for (const ast::File& f : rules.program.modules) input.modules.push_back(&f);
  for (const ast::File& f : rules.program.rule_files) input.rule_files.push_back(&f);
  lower_and_generate(rules, input, lower, err);
  return std::move(rules);
}

bool CompileDriver::sources_are_safe(const check::Program& program, std::ostream& err) const {
  if (options_.allow_insecure_rules) return true;
  bool safe = true;
  for (const auto& source : program.sources)
    if (auto reason = runtime::insecure_reason(source->path())) {
      err << "seam run: " << *reason << "\n";
      safe = false;
    }
  return safe;
}

UnitFiles CompileDriver::split_units(const check::Program& program) {
  UnitFiles out;
  options_.module_files = user_modules(program, files_);
  TuningFiles tuning = tuning_files(program, files_);
  options_.tuning_files = tuning.all;
  out.not_units = options_.module_files;
  out.not_units.insert(out.not_units.end(), tuning.tuning_only.begin(), tuning.tuning_only.end());
  for (const std::string& f : files_)
    if (!contains(out.not_units, f)) out.units.push_back(f);
  return out;
}

std::vector<runtime::UnitCompileResult> CompileDriver::build_units(
    CompiledRules& all, const std::vector<std::string>& units) const {
  check::mark_unavailable(all.program, options_.compile.probe_missing);
  std::vector<CompiledRules> lowered(units.size());
  std::vector<std::ostringstream> printed(units.size());
  for (size_t i = 0; i < units.size(); ++i) {
    lower::Input input;
    for (const ast::File& f : all.program.modules) input.modules.push_back(&f);
    for (const ast::File& f : all.program.rule_files)
      if (f.source->path() == units[i]) input.rule_files.push_back(&f);
    lower_and_generate(lowered[i], input, options_.compile.lower, printed[i]);
  }
  std::vector<runtime::UnitCompileResult> out(units.size());
  runtime::parallel_for(units.size(), [&](size_t i) {
    build::BuildResult built;
    if (lowered[i].ok) built = build_rules(lowered[i], printed[i]);
    out[i] = unit_result(units[i], compiled_hash(all.program, units[i]), lowered[i], built, printed[i].str());
  });
  return out;
}

runtime::UnitCompileResult CompileDriver::compile_unit(const std::string& path, int* exit_code) const {
  std::vector<std::string> paths = {path};
  for (const std::string& module : options_.module_files)
    if (module != path) paths.push_back(module);
  std::vector<std::string> overlays;
  for (const std::string& tuning : options_.tuning_files)
    if (tuning != path) overlays.push_back(tuning);
  std::ostringstream err;
  CompiledRules rules = compile(paths, overlays, true, err);
  int code = 1;
  if (rules.ok && !sources_are_safe(rules.program, err)) {
    rules.ok = false;
    code = 2;
  }
  build::BuildResult built;
  if (rules.ok) built = build_rules(rules, err);
  runtime::UnitCompileResult out =
      unit_result(path, compiled_hash(rules.program, path), rules, built, err.str());
  if (exit_code) *exit_code = out.build ? 0 : code;
  return out;
}

CompiledRules compile_rules(const CompileOptions& options, std::ostream& err) {
  DriverOptions driver;
  driver.compile = options;
  return CompileDriver(std::move(driver)).compile_all(err);
}

runtime::UnitCompileResult compile_unit(const std::string& path, const DriverOptions& options,
                                        int* exit_code) {
  return CompileDriver(options).compile_unit(path, exit_code);
}

}  // namespace seam::cli
