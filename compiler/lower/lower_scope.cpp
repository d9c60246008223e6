#include "compiler/lower/lower_scope.hpp"

#include "compiler/lower/lowerer.hpp"

#include <algorithm>

namespace seam::lower {

void lower_scope(const Input& input, const Options& options, plan::Program& program) {
  for (const ast::File* file : input.rule_files)
    for (const ast::Decl& d : file->decls) {
      const auto* s = std::get_if<ast::ScopeDecl>(&d);
      if (!s || !program.plan.scope.origin.empty()) continue;  // the checker allows one
      plan::Scope& scope = program.plan.scope;
      scope.origin = origin_of(s->range);
      scope.argument = s->argument;
      if (s->kind.name == "workload") scope.kind = plan::ScopeKind::Workload;
      if (s->kind.name == "cgroup") scope.kind = plan::ScopeKind::Cgroup;
      if (s->kind.name == "comm") scope.kind = plan::ScopeKind::Comm;
    }
  for (const ast::File* module : input.modules)
    for (const ast::Decl& d : module->decls)
      if (const auto* lib = std::get_if<ast::LibraryDecl>(&d); lib && lib->workload)
        for (const ast::LibraryPattern& p : lib->patterns)
          if (!p.executable &&
              std::find(program.plan.workload_libraries.begin(), program.plan.workload_libraries.end(),
                        p.glob) == program.plan.workload_libraries.end())
            program.plan.workload_libraries.push_back(p.glob);
  if (options.operator_scope || program.plan.scope.kind != plan::ScopeKind::Host)
    program.kernel_types.push_back("trace_event_raw_sched_process_fork");  // the scope-follow program's
}

}  // namespace seam::lower
