#pragma once
// Documents made from the command line's own definitions (the CLI11 options and their help
// text), so that they never disagree with `--help`: `seam completion bash` writes a bash
// completion script, `seam man` a man page (roff).
#include <string>

namespace CLI {
class App;
}

namespace seam::cli {

std::string bash_completion(const CLI::App& app);
std::string man_page(const CLI::App& app);

}  // namespace seam::cli
