#include "cli/commands.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

#include <vector>
#include "cli/help_docs.hpp"

#include "cli/version.hpp"

namespace seam::cli {

int run_main(int argc, char** argv) {
  CLI::App app{"seam: declarative probe rules for GPU inference hosts"};
  app.require_subcommand(1);
  app.set_version_flag(
      "--version", [] { return version_text(); }, "Print the version, git revision, libbpf and clang");
  std::vector<Command> commands = {add_lint(app),  add_compile(app), add_run(app),
                                   add_build(app), add_stdlib(app),  add_probes(app)};
  // Made from the definitions above (help_docs.hpp), so they say what --help says.
  std::string shell;
  CLI::App* completion = app.add_subcommand("completion", "Print a shell completion script (bash)");
  completion->add_option("shell", shell, "The shell (bash)")->check(CLI::IsMember({"bash"}))->required();
  commands.push_back({completion, [&app] {
                        std::cout << bash_completion(app);
                        return 0;
                      }});
  CLI::App* man = app.add_subcommand("man", "Print seam's man page (roff; `seam man | man -l -`)");
  commands.push_back({man, [&app] {
                        std::cout << man_page(app);
                        return 0;
                      }});
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  for (Command& c : commands)
    if (c.app->parsed()) return c.run();
  return 2;
}

}  // namespace seam::cli
