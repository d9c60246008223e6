// `seam lint [PATH...]`: load rule files and the stdlib, check them, print the diagnostics.
// Everything goes to stdout in every format, so that `seam lint > report` captures the findings;
// only usage errors go to stderr. No root, BPF, compiler or network is needed.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/compile_driver.hpp"
#include "cli/default_rules.hpp"
#include "cli/rule_toggles.hpp"
#include "compiler/bundle/bundle.hpp"
#include "compiler/diag/render.hpp"

namespace seam::cli {

namespace {

struct LintOptions {
  std::vector<std::string> paths;
  std::vector<std::string> stdlib_dirs;
  std::string format = "text";
  bool strict = false;
  ToggleFlags toggles;
};

bool unreadable_input(const diag::Diagnostics& diags) {
  for (const diag::Diagnostic& d : diags.all())
    if (d.code == diag::Code::UnreadableFile) return true;
  return false;
}

// A bundle of `seam build` was checked when it was built: lint says whether this seam can run it.
// Returns 0 when it can, 2 when it cannot (not a bundle, corrupt, another engine ABI).
int lint_bundle(const std::string& path) {
  bundle::Decoded decoded = bundle::read_file(path);
  if (!decoded.bundle) {
    std::cout << "error: " << decoded.error << "\n";
    return 2;
  }
  const bundle::Bundle& b = *decoded.bundle;
  std::cout << path << ": bundle of " << b.variants.front().plan.rules.size() << " rules from "
            << b.sources.size() << " files, built by " << b.engine_version << " on " << b.built_on_kernel
            << "; runs here\n";
  return 0;
}

int lint(const LintOptions& options) {
  if (!options.paths.empty() &&
      std::all_of(options.paths.begin(), options.paths.end(), bundle::is_bundle_file)) {
    int code = 0;
    for (const std::string& path : options.paths) code = std::max(code, lint_bundle(path));
    return code;
  }
  DriverOptions driver;
  driver.compile.paths =
      options.paths.empty() ? std::vector<std::string>{default_rules_dir()} : options.paths;
  driver.compile.extra_stdlib_dirs = options.stdlib_dirs;
  driver.compile.toggles = options.toggles.toggles();
  check::Program program = CompileDriver(std::move(driver)).check_all();
  const diag::Diagnostics& diags = program.diagnostics;

  if (options.format == "json") {
    std::cout << diag::render_json(diags).dump(2) << "\n";
  } else if (options.format == "github") {
    std::cout << diag::render_github(diags);
  } else {
    bool color = ::isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
    std::cout << diag::render_text(diags, color);
    // What the overrides made of the rules they touched (only when there are some).
    print_tuned_rules(program.tuned, std::cout);
  }
  std::cout.flush();

  if (unreadable_input(diags)) return 2;
  if (diags.has_errors()) return 1;
  if (options.strict && diags.warning_count() > 0) return 1;
  return 0;
}

}  // namespace

Command add_lint(CLI::App& parent) {
  auto options = std::make_shared<LintOptions>();
  CLI::App* app = parent.add_subcommand("lint", "Check rule files for errors without loading anything");
  app->add_option("paths", options->paths,
                  "Rule files or directories, - for standard input (default: the rules/ pack)");
  app->add_option("--stdlib", options->stdlib_dirs, "Another directory of stdlib modules (repeatable)")
      ->allow_extra_args(false);
  app->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json", "github"}))
      ->capture_default_str();
  app->add_flag("--strict", options->strict, "Fail on warnings too");
  add_toggle_flags(*app, options->toggles);
  return {app, [options] { return lint(*options); }};
}

}  // namespace seam::cli
