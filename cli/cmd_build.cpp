// `seam build [PATH...] -o FILE`: compile rule files (with clang, on a build host or in CI) into
// one bundle that `seam run FILE` loads on hosts without clang or kernel headers
// (compiler/bundle/bundle.hpp). All the files become one object, checked together as `seam lint`
// checks them; a variant is built for kernels with and without task-local storage.
#include <sys/utsname.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/compile_driver.hpp"
#include "cli/default_rules.hpp"
#include "cli/version.hpp"
#include "compiler/build/content_hash.hpp"
#include "compiler/bundle/bundle.hpp"

namespace seam::cli {

namespace {

struct BuildFlags {
  CompileOptions compile;
  std::string output;
};

std::string this_kernel() {
  utsname u{};
  if (uname(&u) != 0) return "";
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

// Writes next to the target and renames over it: a seam watching the bundle sees one complete file.
bool write_atomically(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

int build(BuildFlags& flags) {
  if (flags.compile.paths.empty()) flags.compile.paths.push_back(default_rules_dir());
  bundle::Bundle out;
  out.engine_version = engine_version();
  out.built_on_kernel = this_kernel();
  // The files are read and checked once; the variant for kernels with task-local storage is the
  // same checked program lowered again.
  DriverOptions options;
  options.compile = flags.compile;
  options.compile.lower.task_storage = false;
  CompileDriver driver(std::move(options));
  CompiledRules compiled = driver.compile_all(std::cerr);
  if (!compiled.ok) return 1;
  for (const auto& source : compiled.program.sources)
    out.sources.push_back({source->path(), build::ContentHash().add(source->text()).hex()});
  const std::string first_c = compiled.generated.c_source;
  for (bool task_storage : {false, true}) {
    if (task_storage) {
      lower::Options lower = flags.compile.lower;
      lower.task_storage = true;
      std::ostringstream quiet;  // notes once: the second variant's would repeat the first's
      compiled = driver.relower(std::move(compiled), lower, quiet);
      if (!compiled.ok) return 1;
      if (compiled.generated.c_source == first_c) break;  // nothing per-thread: one variant fits all
    }
    build::BuildResult built = build_rules(compiled, std::cerr, /*portable=*/true);
    if (!built.object) return 1;
    out.variants.push_back({task_storage, std::move(compiled.lowered.plan), std::move(*built.object)});
  }
  std::vector<uint8_t> bytes = bundle::encode(out);
  if (!write_atomically(flags.output, bytes)) {
    std::cerr << "seam build: cannot write " << flags.output << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  size_t rules = out.variants.front().plan.rules.size();
  std::cerr << "seam build: " << flags.output << ": " << rules << " rules from " << out.sources.size()
            << " files, " << out.variants.size() << (out.variants.size() == 1 ? " variant, " : " variants, ")
            << bytes.size() << " bytes\n";
  return 0;
}

}  // namespace

Command add_build(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("build", "Compile rule files into a bundle that runs without clang");
  auto flags = std::make_shared<BuildFlags>();
  app->add_option("paths", flags->compile.paths, "Rule files or directories (default: the rules/ pack)");
  app->add_option("--stdlib", flags->compile.extra_stdlib_dirs, "Extra module directory (repeatable)");
  app->add_option("-o,--output", flags->output, "The bundle file to write")->required();
  return {app, [flags] { return build(*flags); }};
}

}  // namespace seam::cli
