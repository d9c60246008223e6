// `seam probes 'LIB:GLOB'`, like `bpftrace -l`: the functions a module's library offers that match
// GLOB (from the library files found in running processes and on the system's library paths),
// and the events the modules already declare on them. `LIB` is a library alias of a module
// (`cudart`, `libpython`); `seam probes` alone lists every library alias.
#include <fnmatch.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <set>

#include "cli/commands.hpp"
#include "compiler/check/program.hpp"
#include "runtime/discover/find_libraries.hpp"
#include "runtime/elf/elf_file.hpp"

namespace seam::cli {

namespace {

struct ProbesOptions {
  std::string pattern;
  std::vector<std::string> stdlib_dirs;
};

bool matches(const std::string& glob, std::string_view name) {
  return ::fnmatch(glob.c_str(), std::string(name).c_str(), 0) == 0;
}

int probes(const ProbesOptions& options) {
  check::LoadOptions load;
  load.stdlib_dirs = check::default_stdlib_dirs();
  load.stdlib_dirs.insert(load.stdlib_dirs.end(), options.stdlib_dirs.begin(), options.stdlib_dirs.end());
  check::Program stdlib = check::load({}, load);
  std::string lib_name = options.pattern.substr(0, options.pattern.find(':'));
  std::string glob = options.pattern.find(':') == std::string::npos
                         ? "*"
                         : options.pattern.substr(options.pattern.find(':') + 1);
  bool any_library = false;
  for (const ast::File& f : stdlib.modules) {
    std::string module = f.module() ? f.module()->name.name : "";
    for (const ast::Decl& d : f.decls) {
      const auto* lib = std::get_if<ast::LibraryDecl>(&d);
      if (!lib || (!lib_name.empty() && !matches(lib_name, lib->name.name))) continue;
      any_library = true;
      if (options.pattern.empty()) {
        std::cout << lib->name.name << " (module " << module << ")\n";
        continue;
      }
      // Events the module declares on this library's functions.
      for (const ast::Decl& e : f.decls)
        if (const auto* ev = std::get_if<ast::EventDecl>(&e))
          for (const ast::ProbeSpec& p : ev->begin)
            if (p.library.name == lib->name.name && matches(glob, p.symbol))
              std::cout << (ev->is_span ? "span " : "point ") << module << "." << ev->name.name << " = "
                        << lib->name.name << ":" << p.symbol << "\n";
      std::vector<plan::LibraryPattern> patterns;
      for (const ast::LibraryPattern& p : lib->patterns) patterns.push_back({p.executable, p.glob});
      runtime::discover::Scope scope;
      scope.include_system_paths = true;
      std::vector<runtime::discover::LibraryFile> files = runtime::discover::find_libraries(patterns, scope);
      if (files.empty())
        std::cerr << "seam probes: no file matching library " << lib->name.name << " found\n";
      for (const runtime::discover::LibraryFile& file : files) {
        auto elf = runtime::elf::ElfFile::open(file.path_for_attach);
        if (!elf) {
          std::cerr << "seam probes: " << file.display_path << ": " << elf.error() << "\n";
          continue;
        }
        std::set<std::string> names;
        for (const runtime::elf::Symbol& s : elf->symbols())
          if (s.defined && s.type == 2 /* STT_FUNC */ && matches(glob, s.name))
            names.insert(std::string(s.name));
        for (const std::string& n : names)
          std::cout << "uprobe " << lib->name.name << ":" << n << "  # " << file.display_path << "\n";
      }
    }
  }
  if (!any_library) {
    std::cerr << "seam probes: no module declares a library named '" << lib_name << "'\n";
    return 1;
  }
  return 0;
}

}  // namespace

Command add_probes(CLI::App& parent) {
  auto options = std::make_shared<ProbesOptions>();
  CLI::App* app = parent.add_subcommand(
      "probes",
      "List the functions a module's library offers (LIB:GLOB, e.g. 'cudart:cuda*') and the declared events");
  app->add_option("pattern", options->pattern, "LIB:GLOB (no pattern: every library alias)");
  app->add_option("--stdlib", options->stdlib_dirs, "Another directory of stdlib modules (repeatable)")
      ->allow_extra_args(false);
  return {app, [options] { return probes(*options); }};
}

}  // namespace seam::cli
