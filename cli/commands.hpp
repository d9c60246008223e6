#pragma once
// The seam command line. Each subcommand lives in its own file (cli/cmd_<name>.cpp), declares
// its options on a CLI11 subcommand in add_<name>(), and returns the action that runs it.
// Exit codes: 0 success, 1 findings or failure of the job, 2 bad usage or unreadable input.
#include <functional>

namespace CLI {
class App;
}

namespace seam::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command add_lint(CLI::App& parent);            // cmd_lint.cpp
Command add_compile(CLI::App& parent);         // cmd_compile.cpp
Command add_run(CLI::App& parent);             // cmd_run.cpp
Command add_build(CLI::App& parent);           // cmd_build.cpp
Command add_stdlib(CLI::App& parent);          // cmd_stdlib.cpp
Command add_probes(CLI::App& parent);          // cmd_probes.cpp
Command add_stdlib_gen(CLI::App& stdlib_app);  // cmd_stdlib_gen.cpp: `seam stdlib gen`

int run_main(int argc, char** argv);

}  // namespace seam::cli
