#include "cli/compile_rules.hpp"

#include <ostream>

#include <CLI/CLI.hpp>

#include "compiler/codegen/prebuilt_bpf.hpp"
#include "runtime/run/prebuilt_objects.hpp"

namespace seam::cli {

std::string clang_error_line(const build::ClangError& e) {
  return e.file + ":" + std::to_string(e.line) + ":" + std::to_string(e.column) + ": error: " + e.message;
}

build::BuildOptions rule_build_options() {
  build::BuildOptions options;
  for (const codegen::PrebuiltBpf& p : codegen::prebuilt_bpf())
    if (!runtime::prebuilt_bpf_object(p.name).empty()) options.extra_flags.push_back(p.linked_flag);
  return options;
}

build::BuildResult build_rules(const CompiledRules& rules, std::ostream& err, bool portable,
                               std::shared_ptr<build::ClangPrestart> prestarted,
                               std::function<void()> on_first_part) {
  build::BuildOptions options = rule_build_options();
  for (const std::string& name : rules.generated.prebuilt_calls)
    if (std::span<const uint8_t> object = runtime::prebuilt_bpf_object(name); !object.empty())
      options.link_with.push_back({"seam_" + name, object});
  options.prestarted = std::move(prestarted);
  options.on_first_part = std::move(on_first_part);
  if (portable) options.extra_flags.push_back("-DSEAM_PORTABLE");
  options.kernel_types = rules.lowered.kernel_types;
  options.source_name = codegen::kGeneratedFile;
  options.parts = build::build_parts(rules.generated.c_source.size());  // one clang per CPU for a large set
  build::BuildResult result = build::build_object(rules.generated.c_source, options);
  if (!result.object) {
    err << "seam: cannot build the BPF program: " << result.object.error() << "\n";
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
