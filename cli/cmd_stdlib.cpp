// `seam stdlib doc`: print docs/stdlib.md, generated from the stdlib modules' declarations and
// doc comments.
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <vector>

#include "cli/commands.hpp"
#include "cli/stdlib_doc.hpp"

namespace seam::cli {

namespace {

struct StdlibOptions {
  std::vector<std::string> stdlib_dirs;
};

int doc(const StdlibOptions& options) {
  Result<std::string> text = stdlib_markdown_from(options.stdlib_dirs);
  if (!text) {
    std::cerr << text.error();
    return 1;
  }
  std::cout << *text;
  return 0;
}

int run_gen(const std::vector<std::string>& args) {
  std::error_code ec;
  std::filesystem::path tool =
      std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "seam-stdlib-gen";
  std::vector<std::string> argv = {tool.string(), "gen"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> c_argv;
  c_argv.reserve(argv.size() + 1);
  for (std::string& a : argv) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  execv(c_argv[0], c_argv.data());
  std::cerr << "seam stdlib gen: cannot run " << tool.string() << ": " << std::strerror(errno)
            << " (it is installed next to seam)\n";
  return 2;
}

}  // namespace

Command add_stdlib(CLI::App& parent) {
  auto options = std::make_shared<StdlibOptions>();
  CLI::App* app = parent.add_subcommand("stdlib", "Work with the standard library of modules");
  app->require_subcommand(1);
  CLI::App* doc_app = app->add_subcommand("doc", "Print docs/stdlib.md, generated from the stdlib modules");
  doc_app->add_option("--stdlib", options->stdlib_dirs, "Stdlib directories (default: the installed stdlib)")
      ->allow_extra_args(false);
  // `gen` runs seam-stdlib-gen, installed next to seam: only it links libclang.
  CLI::App* gen_app =
      app->add_subcommand("gen", "Print a module for functions of a C header (read with libclang)");
  gen_app->prefix_command();
  gen_app->set_help_flag();
  return {app,
          [options, gen_app] { return gen_app->parsed() ? run_gen(gen_app->remaining()) : doc(*options); }};
}

}  // namespace seam::cli
