// `scope` declarations: at most one per rule file, none in a module; a known kind with the
// argument it needs; a cgroup that exists on this host; a comm pattern a task name can match.
#include <fnmatch.h>
#include <sys/stat.h>

#include "compiler/check/checker.hpp"
#include "compiler/plan/cgroup_path.hpp"

namespace seam::check {

using diag::Code;

namespace {

bool any_workload_library(const Program& program) {
  for (const ast::File& f : program.modules)
    for (const ast::Decl& d : f.decls)
      if (const auto* lib = std::get_if<ast::LibraryDecl>(&d); lib && lib->workload) return true;
  return false;
}

}  // namespace

void Checker::check_scopes(Table& t) {
  const ast::ScopeDecl* first = nullptr;
  for (const ast::Decl& decl : t.file->decls) {
    const auto* s = std::get_if<ast::ScopeDecl>(&decl);
    if (!s || s->kind.name.empty()) continue;
    if (!t.module.empty()) {
      diags_.error(Code::BadScope, s->range, "a module cannot declare a scope")
          .hints.push_back("declare the scope in the rule files that use module '" + t.module + "'");
      continue;
    }
    if (first) {
      diags_.error(Code::BadScope, s->range, "a rule file has one scope; this one is its second")
          .hints.push_back(first_declared(first->range));
      continue;
    }
    first = s;
    const std::string& kind = s->kind.name;
    bool wants_argument = kind == "cgroup" || kind == "comm";
    if (kind != "workload" && kind != "host" && !wants_argument) {
      diags_.error(Code::BadScope, s->kind.range, "unknown scope '" + kind + "'")
          .hints.push_back("a scope is workload, host, cgroup \"PATH\" or comm \"PATTERN\"");
      continue;
    }
    if (wants_argument && !s->has_argument) {
      diags_.error(
          Code::BadScope, s->kind.range,
          "scope " + kind + " needs a quoted " + (kind == "cgroup" ? "cgroup path" : "name pattern"));
      continue;
    }
    if (!wants_argument && s->has_argument) {
      diags_.error(Code::BadScope, s->argument_range, "scope " + kind + " takes no argument");
      continue;
    }
    if (kind == "workload" && !any_workload_library(program_)) {
      diags_.error(Code::BadScope, s->kind.range, "scope workload, but no module marks a workload library")
          .hints.push_back("mark one in its module: library cudart = \"libcudart.so*\" workload");
      continue;
    }
    if (kind == "comm") {
      // Task names are at most 15 bytes; a pattern longer than that (less its wildcards) never matches.
      size_t literal = 0;
      for (char c : s->argument) literal += c != '*' && c != '?';
      if (s->argument.empty() || literal > 15)
        diags_.error(Code::BadScope, s->argument_range,
                     "comm pattern '" + s->argument + "' can never match a task name (1 to 15 bytes)");
      else if (fnmatch(s->argument.c_str(), "", 0) == FNM_NOMATCH &&
               s->argument.find('[') != std::string::npos && s->argument.find(']') == std::string::npos)
        diags_.error(Code::BadScope, s->argument_range,
                     "comm pattern '" + s->argument + "' has an unclosed '['");
      continue;
    }
    if (kind == "cgroup") {
      if (s->argument.empty() || s->argument[0] != '/') {
        diags_.error(
            Code::BadScope, s->argument_range,
            "cgroup path '" + s->argument + "' must start with '/' (a path under the cgroup v2 mount)");
        continue;
      }
      std::string dir = plan::cgroup_dir(s->argument);
      struct stat st {};
      if (plan::cgroup_v2_relative(s->argument).empty() || stat(dir.c_str(), &st) != 0 ||
          !S_ISDIR(st.st_mode))
        diags_.error(Code::UnknownCgroup, s->argument_range, "no cgroup '" + s->argument + "' on this host")
            .hints.push_back("looked for " + dir);
    }
  }
}

}  // namespace seam::check
