// `seam stdlib gen`: print a module for the functions of a C header that match --functions, read
// with libclang. The module is checked before it is printed; docs/stdlib_gen.md has the details.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "compiler/check/check.hpp"
#include "compiler/diag/render.hpp"
#include "compiler/stdlib_gen/stdlib_gen.hpp"

namespace seam::cli {

namespace {

struct GenCliOptions {
  std::string header;
  std::string library;
  std::vector<std::string> functions;
  std::string module_name;
  std::string strip_prefix;
  std::vector<std::string> include_dirs;
  std::vector<std::string> defines;
  std::string enums_out;
  std::vector<std::string> variant_defines;
  CLI::Option* strip_prefix_option = nullptr;
};

// Loads the generated text as a module next to the stdlib and checks it: a generator bug should
// not reach the user's stdlib directory.
bool passes_checker(const std::string& text) {
  char path[] = "/tmp/seam-stdlib-gen-XXXXXX.seam";
  int fd = ::mkstemps(path, 5);
  if (fd < 0) return true;  // nowhere to check it: print it anyway
  ::close(fd);
  { std::ofstream(path) << text; }
  check::LoadOptions load;
  load.stdlib_dirs = check::default_stdlib_dirs();
  check::Program program = check::load({path}, load);
  check::check(program);
  ::unlink(path);
  if (!program.diagnostics.has_errors()) return true;
  std::cerr << "seam stdlib gen: the generated module does not pass the checker (a bug; please report it):\n"
            << diag::render_text(program.diagnostics, false) << text;
  return false;
}

int gen(const GenCliOptions& cli) {
  stdlib_gen::GenOptions options;
  Result<stdlib_gen::LibrarySpec> library = stdlib_gen::parse_library_spec(cli.library);
  if (!library) {
    std::cerr << "seam stdlib gen: " << library.error() << "\n";
    return 2;
  }
  options.library_alias = library->alias;
  options.library_pattern = library->pattern;
  options.header = cli.header;
  options.function_globs = cli.functions;
  options.module_name = cli.module_name;
  if (cli.strip_prefix_option->count() > 0) options.strip_prefix = cli.strip_prefix;
  for (const std::string& dir : cli.include_dirs) options.clang_args.push_back("-I" + dir);
  for (const std::string& define : cli.defines) options.clang_args.push_back("-D" + define);
  options.variant_defines = cli.variant_defines;

  stdlib_gen::GenResult result = stdlib_gen::generate(options);
  for (const std::string& e : result.errors) std::cerr << e << "\n";
  switch (result.status) {
    case stdlib_gen::GenStatus::BadInput:
      return 2;
    case stdlib_gen::GenStatus::HeaderErrors:
    case stdlib_gen::GenStatus::NoMatch:
      return 1;
    case stdlib_gen::GenStatus::Ok:
      break;
  }
  if (!passes_checker(result.module_text)) return 1;
  if (!cli.enums_out.empty()) {
    std::ofstream out(cli.enums_out);
    out << result.enums.dump(2) << "\n";
    if (!out) {
      std::cerr << "seam stdlib gen: cannot write " << cli.enums_out << "\n";
      return 1;
    }
  }
  std::cout << result.module_text;
  return 0;
}

}  // namespace

Command add_stdlib_gen(CLI::App& stdlib_app) {
  auto options = std::make_shared<GenCliOptions>();
  CLI::App* app =
      stdlib_app.add_subcommand("gen", "Print a module for functions of a C header (read with libclang)");
  app->add_option("--header", options->header, "The C header")->required();
  app->add_option("--library", options->library, "ALIAS=PATTERN: the library line (cudart=libcudart.so*)")
      ->required();
  app->add_option("--functions", options->functions, "Glob of function names (repeatable)")
      ->required()
      ->allow_extra_args(false);
  app->add_option("--module", options->module_name, "Module name (default: the header's file name)");
  options->strip_prefix_option =
      app->add_option("--strip-prefix", options->strip_prefix,
                      "Prefix removed from function names to make span names (default: their common "
                      "lowercase prefix, like cuda)");
  app->add_option("-I", options->include_dirs, "Include directory for the header (repeatable)")
      ->allow_extra_args(false);
  app->add_option("-D", options->defines, "Preprocessor definition NAME[=VALUE] (repeatable)")
      ->allow_extra_args(false);
  app->add_option("--variants-define", options->variant_defines,
                  "Parse again with this macro defined; a function declared at the same place under "
                  "another name becomes an alternative probe (CUDA_API_PER_THREAD_DEFAULT_STREAM: "
                  "cudaMemcpy | cudaMemcpy_ptds) (repeatable)")
      ->allow_extra_args(false);
  app->add_option("--enums-out", options->enums_out,
                  "Also write the enums the fields use as JSON {enum: {value: name}} to this file");
  return {app, [options] { return gen(*options); }};
}

}  // namespace seam::cli
