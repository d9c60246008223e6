#include "cli/commands.hpp"

int main(int argc, char** argv) {
  return seam::cli::run_main(argc, argv);
}
