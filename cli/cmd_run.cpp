#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.hpp"

namespace seam::cli {

// Placeholder until the stage lands; replaced by the real command.
Command add_run(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("run", "not implemented yet");
  return {app, [] {
            std::cerr << "seam run: not implemented yet\n";
            return 2;
          }};
}

}  // namespace seam::cli
