#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.hpp"

namespace seam::cli {

// Placeholder until the stage lands; replaced by the real command.
Command add_lint(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("lint", "not implemented yet");
  return {app, [] {
            std::cerr << "seam lint: not implemented yet\n";
            return 2;
          }};
}

}  // namespace seam::cli
