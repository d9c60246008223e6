// `seam stdlib doc`: print docs/stdlib.md, generated from the stdlib modules' declarations and
// doc comments.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/stdlib_doc.hpp"

namespace seam::cli {

namespace {

struct StdlibOptions {
  std::vector<std::string> stdlib_dirs;
};

int doc(const StdlibOptions& options) {
  std::string error;
  std::string text = stdlib_markdown_from(options.stdlib_dirs, &error);
  if (!error.empty()) {
    std::cerr << error;
    return 1;
  }
  std::cout << text;
  return 0;
}

}  // namespace

Command add_stdlib(CLI::App& parent) {
  auto options = std::make_shared<StdlibOptions>();
  CLI::App* app = parent.add_subcommand("stdlib", "Work with the standard library of modules");
  app->require_subcommand(1);
  CLI::App* doc_app = app->add_subcommand("doc", "Print docs/stdlib.md, generated from the stdlib modules");
  doc_app->add_option("--stdlib", options->stdlib_dirs, "Stdlib directories (default: the installed stdlib)")
      ->allow_extra_args(false);
  Command gen = add_stdlib_gen(*app);
  return {app, [options, gen] { return gen.app->parsed() ? gen.run() : doc(*options); }};
}

}  // namespace seam::cli
