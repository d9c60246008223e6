// `seam compile FILE... --emit c|layout|obj`: shows each stage of what `seam run` would load.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/compile_driver.hpp"
#include "runtime/load/uprobe_session_probe.hpp"

namespace seam::cli {

Command add_compile(CLI::App& parent) {
  CLI::App* app =
      parent.add_subcommand("compile", "Compile rule files and show the generated C, layout or object");
  auto options = std::make_shared<CompileOptions>();
  auto emit = std::make_shared<std::string>("c");
  auto output = std::make_shared<std::string>();
  app->add_option("paths", options->paths, "Rule files or directories")->required();
  app->add_option("--stdlib", options->extra_stdlib_dirs, "Extra module directory (repeatable)");
  app->add_option("--emit", *emit, "What to print: c, layout or obj")
      ->check(CLI::IsMember({"c", "layout", "obj"}));
  app->add_option("-o,--output", *output, "Write to this file instead of stdout");
  add_ustack_copy_option(*app, options->lower);
  return {app, [options, emit, output] {
            // As `seam run` would: a uprobe session where this kernel (and user) has them.
            options->lower.uprobe_session = [] { return runtime::uprobe_session_support().usable; };
            CompiledRules rules = compile_rules(*options, std::cerr);
            if (!rules.ok) return 1;
            std::string text;
            if (*emit == "c") {
              text = rules.generated.c_source;
            } else if (*emit == "layout") {
              text = rules.generated.layout.dump(2) + "\n";
            } else {
              build::BuildResult built = build_rules(rules, std::cerr);
              if (!built.object) return 1;
              text.assign(built.object->begin(), built.object->end());
              if (output->empty() && isatty(1)) {
                std::cerr << "seam compile: refusing to write an object to a terminal; use -o FILE\n";
                return 2;
              }
            }
            if (output->empty()) {
              std::cout << text;
              return std::cout.good() ? 0 : 1;
            }
            std::ofstream out(*output, std::ios::binary);
            out << text;
            if (!out) {
              std::cerr << "seam compile: cannot write " << *output << "\n";
              return 1;
            }
            return 0;
          }};
}

}  // namespace seam::cli
