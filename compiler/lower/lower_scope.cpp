#include "compiler/lower/lower_scope.hpp"

#include "compiler/lower/lowerer.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace seam::lower {

namespace {

// The file part of "file:line".
std::string file_of(const std::string& origin) {
  size_t colon = origin.rfind(':');
  return colon == std::string::npos ? origin : origin.substr(0, colon);
}

}  // namespace

void lower_scope(const Input& input, const Options& options, plan::Program& program) {
  std::map<std::string, int> scope_of_file;  // files without a `scope` run host-wide
  for (const ast::File* file : input.rule_files)
    for (const ast::Decl& d : file->decls) {
      const auto* s = std::get_if<ast::ScopeDecl>(&d);
      if (!s || scope_of_file.count(file->source->shown())) continue;  // the checker allows one per file
      plan::Scope scope;
      scope.origin = origin_of(s->range);
      scope.argument = s->argument;
      if (s->kind.name == "workload") scope.kind = plan::ScopeKind::Workload;
      if (s->kind.name == "cgroup") scope.kind = plan::ScopeKind::Cgroup;
      if (s->kind.name == "comm") scope.kind = plan::ScopeKind::Comm;
      if (scope.kind == plan::ScopeKind::Host) continue;
      // Files with the same selector share one entry (and one slot in the generated object).
      std::vector<plan::Scope>& scopes = program.plan.scopes;
      auto same = std::find_if(scopes.begin(), scopes.end(), [&](const plan::Scope& o) {
        return o.kind == scope.kind && o.argument == scope.argument;
      });
      if (same == scopes.end()) same = scopes.insert(scopes.end(), scope);
      scope_of_file[file->source->shown()] = static_cast<int>(same - scopes.begin());
    }
  auto index_of = [&](const std::string& file) {
    auto it = scope_of_file.find(file);
    return it == scope_of_file.end() ? -1 : it->second;
  };
  for (plan::Rule& r : program.plan.rules) r.scope = index_of(r.file);
  for (plan::Metric& m : program.plan.metrics) m.scope = index_of(file_of(m.origin));
  for (const ast::File* module : input.modules)
    for (const ast::Decl& d : module->decls)
      if (const auto* lib = std::get_if<ast::LibraryDecl>(&d); lib && lib->workload)
        for (const ast::LibraryPattern& p : lib->patterns)
          if (!p.executable &&
              std::find(program.plan.workload_libraries.begin(), program.plan.workload_libraries.end(),
                        p.glob) == program.plan.workload_libraries.end())
            program.plan.workload_libraries.push_back(p.glob);
  if (options.operator_scope || !program.plan.scopes.empty()) {
    // The scope-follow program's (bpf-templates/scope_follow.c.tmpl): the record, or as a raw
    // tracepoint the child task.
    program.kernel_types.push_back("trace_event_raw_sched_process_fork");
    if (program.plan.raw_sched_programs) {
      program.kernel_types.push_back("bpf_raw_tracepoint_args");
      program.kernel_types.push_back("struct task_struct");
    }
  }
}

}  // namespace seam::lower
