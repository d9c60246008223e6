#include "cli/commands.hpp"

#include <CLI/CLI.hpp>

namespace seam::cli {

int run_main(int argc, char** argv) {
  CLI::App app{"seam: declarative probe rules for GPU inference hosts"};
  app.require_subcommand(1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return 0;
}

}  // namespace seam::cli
