#include "cli/compile_driver.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "cli/kernel_probes.hpp"
#include "compiler/build/content_hash.hpp"
#include "compiler/build/object_cache.hpp"
#include "compiler/check/check.hpp"
#include "compiler/diag/render.hpp"
#include "runtime/run/reload_plan.hpp"
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

// The hash of the text the unit was compiled from, as the loader read it: hashing the file
// apart from that read could pair one version's hash with another's program, and a reload would
// then miss an edit. A file the loader did not read (unreadable, too large) is hashed as it is.
std::string compiled_hash(const check::Program& program, const std::string& path) {
  for (const auto& source : program.sources)
    if (source->path() == path) return build::ContentHash().add(source->text()).hex();
  return build::hash_file(path);
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
  load.shown_names = options_.compile.shown_names;
  check::Program program = check::load(files_, load);
  program.toggles = options_.compile.toggles;
  check::check(program);
  return program;
}

CompiledRules CompileDriver::compile_all(std::ostream& err) {
  files_ = runtime::rule_files(options_.compile.paths);
  return compile(files_, false, err);
}

CompiledRules CompileDriver::compile(const std::vector<std::string>& paths, bool drop_missing,
                                     std::ostream& err) const {
  CompiledRules out;
  check::LoadOptions load;
  load.stdlib = stdlib();
  load.read = read_;
  load.shown_names = options_.compile.shown_names;
  out.program = check::load(paths, load);
  out.program.toggles = options_.compile.toggles;
  if (!out.program.diagnostics.has_errors()) check::check(out.program);
  out.program.diagnostics.sort();
  if (!out.program.diagnostics.all().empty()) err << diag::render_text(out.program.diagnostics);
  if (out.program.diagnostics.has_errors()) return out;
  if (drop_missing) check::mark_unavailable(out.program, options_.compile.probe_missing);

  lower::Input input;
  for (const ast::File& f : out.program.modules) input.modules.push_back(&f);
  for (const ast::File& f : out.program.rule_files) input.rule_files.push_back(&f);
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
    codegen::share_identical_programs(out.lowered, options_.compile.codegen);
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

std::string CompileDriver::unit_name() const {
  std::string name;
  for (std::string path : options_.compile.paths) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    name += (name.empty() ? "" : " ") + path;
  }
  return name;
}

runtime::UnitCompileResult CompileDriver::unit_result(const std::vector<std::string>& files,
                                                      CompiledRules& rules, build::BuildResult& built,
                                                      std::string printed) const {
  runtime::UnitCompileResult out;
  // The hash of each file's text as compiled: the reloader compares these with the files on
  // disk, so an edit, an added file and a removed one are all changes.
  std::map<std::string, std::string> hashes;
  build::ContentHash all;
  for (const std::string& f : files) {
    hashes[f] = compiled_hash(rules.program, f);
    all.add(f).add(hashes[f]);
  }
  out.hash = all.hex();
  out.files = hashes;
  out.diagnostics = rules.program.diagnostics;
  out.printed = std::move(printed);
  if (!rules.ok || !built.object) {
    out.error = first_error(rules, built, out.printed);
    if (out.error.empty()) out.error = unit_name() + ": cannot compile";
    return out;
  }
  auto unit = std::make_unique<runtime::UnitBuild>();
  unit->path = unit_name();
  unit->hash = out.hash;
  unit->files = std::move(hashes);
  unit->plan = std::move(rules.lowered.plan);
  unit->object = std::move(*built.object);
  unit->compile_ms = built.compile_ms;
  out.build = std::move(unit);
  return out;
}

runtime::UnitCompileResult CompileDriver::build_unit(CompiledRules& all, std::ostream& err,
                                                     EarlyClang early) const {
  std::ostringstream printed;
  // The kernel's missing probes change the plan only when a rule needs one: lower again then.
  if (all.ok && check::mark_unavailable(all.program, options_.compile.probe_missing) > 0) {
    lower::Input input;
    for (const ast::File& f : all.program.modules) input.modules.push_back(&f);
    for (const ast::File& f : all.program.rule_files) input.rule_files.push_back(&f);
    lower_and_generate(all, input, options_.compile.lower, printed);
  }
  build::BuildResult built;
  if (all.ok)
    built = build_rules(all, printed, false, std::move(early.clangs), std::move(early.on_first_part));
  early.clangs.reset();  // not built: its clangs are killed now
  if (built.object && early.record && !early.recorded)
    build::keep_record(build::default_cache_dir(), *early.record);
  err << printed.str();
  return unit_result(files_, all, built, printed.str());
}

runtime::UnitCompileResult CompileDriver::compile_unit(int* exit_code) const {
  std::vector<std::string> files = runtime::rule_files(options_.compile.paths);
  std::ostringstream err;
  CompiledRules rules = compile(files, true, err);
  int code = 1;
  if (rules.ok && !sources_are_safe(rules.program, err)) {
    rules.ok = false;
    code = 2;
  }
  build::BuildResult built;
  if (rules.ok) built = build_rules(rules, err);
  runtime::UnitCompileResult out = unit_result(files, rules, built, err.str());
  if (exit_code) *exit_code = out.build ? 0 : code;
  return out;
}

EarlyClang start_clang_early(const CompileOptions& compile, const std::string& settings) {
  EarlyClang early;
  std::vector<std::string> stdlib_dirs = check::default_stdlib_dirs();
  stdlib_dirs.insert(stdlib_dirs.end(), compile.extra_stdlib_dirs.begin(), compile.extra_stdlib_dirs.end());
  // Rule text from the command line is written to a new directory at every run (adhoc_rules.hpp):
  // recorded by the name it is shown by and its text, not by its path.
  std::vector<std::string> files;
  std::string texts;
  size_t text_bytes = 0;
  for (const std::string& file : runtime::rule_files(compile.paths)) {
    auto shown = compile.shown_names.find(file);
    if (shown == compile.shown_names.end()) {
      files.push_back(file);
      continue;
    }
    std::ifstream in(file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text_bytes += text.size();
    texts += "text " + shown->second + " " + build::ContentHash().add(text).hex() + "\n";
  }
  early.record = build::start_record(files, runtime::rule_files(stdlib_dirs), settings + texts);
  early.record->bytes += text_bytes;
  early.recorded = build::recorded(build::default_cache_dir(), *early.record);
  if (!early.recorded)
    early.clangs =
        build::ClangPrestart::start(build::prestart_clangs(early.record->bytes), rule_build_options());
  return early;
}

CompiledRules compile_rules(const CompileOptions& options, std::ostream& err) {
  DriverOptions driver;
  driver.compile = options;
  return CompileDriver(std::move(driver)).compile_all(err);
}

}  // namespace seam::cli
