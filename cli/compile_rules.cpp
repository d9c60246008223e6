#include "cli/compile_rules.hpp"

#include <filesystem>
#include <ostream>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "cli/kernel_probes.hpp"
#include "compiler/check/check.hpp"
#include "compiler/diag/render.hpp"

namespace seam::cli {

CompiledRules compile_rules(const CompileOptions& options, std::ostream& err) {
  CompiledRules out;
  check::LoadOptions load;
  load.stdlib_dirs = check::default_stdlib_dirs();
  load.stdlib_dirs.insert(load.stdlib_dirs.end(), options.extra_stdlib_dirs.begin(),
                          options.extra_stdlib_dirs.end());
  std::vector<std::string> paths = options.paths;
  paths.insert(paths.end(), options.overlay_paths.begin(), options.overlay_paths.end());
  out.program = check::load(paths, load);
  out.program.toggles = options.toggles;
  if (!out.program.diagnostics.has_errors()) check::check(out.program);
  if (options.outputs_elsewhere) out.program.diagnostics.drop(diag::Code::UnknownOutput);
  if (options.outputs_elsewhere) out.program.diagnostics.drop(diag::Code::UnknownOverrideTarget);
  out.program.diagnostics.sort();
  if (!out.program.diagnostics.all().empty()) err << diag::render_text(out.program.diagnostics);
  if (out.program.diagnostics.has_errors()) return out;
  check::mark_unavailable(out.program, options.probe_missing);

  lower::Input input;
  for (const ast::File& f : out.program.modules) input.modules.push_back(&f);
  std::error_code ec;
  auto is_overlay = [&](const ast::File& f) {
    for (const std::string& o : options.overlay_paths)
      if (std::filesystem::weakly_canonical(o, ec) == std::filesystem::weakly_canonical(f.source->path(), ec))
        return true;
    return false;
  };
  for (const ast::File& f : out.program.rule_files)
    if (!is_overlay(f)) input.rule_files.push_back(&f);
  try {
    lower::Options lower = options.lower;
    if (!lower.has_tracepoint) lower.has_tracepoint = has_tracepoint;  // per-syscall tracepoints here
    out.lowered = lower::lower(input, lower);
    for (const std::string& u : out.lowered.unsupported) err << "seam: note: " << u << "\n";
    out.generated = codegen::generate(out.lowered, options.codegen);
  } catch (const std::logic_error& e) {  // a bug in seam: refuse the program rather than run it
    out.internal_error = std::string("seam: error: internal error: ") + e.what();
    err << out.internal_error << "\n";
    return out;
  }
  out.ok = true;
  return out;
}

std::string clang_error_line(const build::ClangError& e) {
  return e.file + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) + ": error: " + e.message;
}

build::BuildResult build_rules(const CompiledRules& rules, std::ostream& err) {
  build::BuildOptions options;
  options.kernel_types = rules.lowered.kernel_types;
  options.source_name = codegen::kGeneratedFile;
  build::BuildResult result = build::build_object(rules.generated.c_source, options);
  if (!result.ok) {
    if (!result.error.empty()) err << "seam: cannot build the BPF program: " << result.error << "\n";
    for (const build::ClangError& e : result.errors) err << clang_error_line(e) << "\n";
    if (result.errors.empty() && !result.clang_stderr.empty()) err << result.clang_stderr;
    if (!result.command.empty())
      err << "seam: the clang command was: " << result.command
          << (result.work_dir.empty() ? " (SEAM_KEEP_BUILD_DIR=1 keeps its directory to re-run it)" : "")
          << "\n";
  }
  return result;
}

}  // namespace seam::cli

namespace seam::cli {

void add_ustack_copy_option(CLI::App& app, lower::Options& lower) {
  app.add_option_function<uint32_t>(
      "--ustack-copy",
      [&lower](uint32_t kib) {
        if (kib % 4 != 0 || kib > 64)
          throw CLI::ValidationError("--ustack-copy",
                                     "a multiple of 4 (KiB) up to 64, not " + std::to_string(kib));
        lower.ustack_copy_bytes = kib * 1024;
      },
      "User stack KiB each ustack record copies for unwinding without frame pointers "
      "(a multiple of 4 up to 64; 0: frame pointers only; default 8)");
}

}  // namespace seam::cli
