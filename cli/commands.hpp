#pragma once
// The seam command line: `seam lint`, `seam compile`, `seam run`, ... Each subcommand lives in
// its own file (cli/cmd_*.cpp) and registers itself on the CLI11 app in commands.cpp.
namespace seam::cli {
int run_main(int argc, char** argv);
}
