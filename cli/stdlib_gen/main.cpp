// seam-stdlib-gen: `seam stdlib gen` in its own binary, so that seam itself does not load
// libclang and LLVM (about 50 MB resident and most of its start time) for every run and lint.
#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"seam stdlib: modules from C headers"};
  app.require_subcommand(1);
  seam::cli::Command gen = seam::cli::add_stdlib_gen(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return gen.run();
}
