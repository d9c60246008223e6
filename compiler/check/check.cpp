// Driving the checker: one name table per file (duplicates reported as they are entered), then
// each declaration checked in source order, then the file-wide warnings.
#include "compiler/check/check.hpp"

#include <algorithm>

#include "compiler/check/checker.hpp"
#include "compiler/check/suggest.hpp"
#include "compiler/check/tuning.hpp"

namespace seam::check {

using diag::Code;

std::string first_declared(const SourceRange& r) {
  if (!r.valid()) return "first declared elsewhere";
  return "first declared at " + r.file->shown() + ":" + std::to_string(r.file->line_col(r.begin).line);
}

namespace {

template <class Map, class Value>
void enter(diag::Diagnostics& diags, std::map<std::string, SourceRange>& first_ranges, const std::string& key,
           Map& map, const ast::Ident& name, Value value, const char* kind) {
  if (name.name.empty()) return;  // the parser gave up on this declaration
  auto [first, inserted] = first_ranges.emplace(key, name.range);
  if (inserted) {
    map.emplace(name.name, value);
    return;
  }
  diags.error(Code::DuplicateName, name.range, std::string(kind) + " '" + name.name + "' is declared twice")
      .hints.push_back(first_declared(first->second));
}

}  // namespace

void Checker::declare_names(Table& t) {
  std::map<std::string, SourceRange> first;  // events and aliases share a namespace; the rest by kind
  for (ast::Decl& decl : t.file->decls) {
    if (auto* e = std::get_if<ast::EventDecl>(&decl)) {
      enter(diags_, first, "event " + e->name.name, t.events, e->name, EventEntry{e, nullptr, &t}, "event");
    } else if (auto* a = std::get_if<ast::AliasDecl>(&decl)) {
      enter(diags_, first, "event " + a->name.name, t.events, a->name, EventEntry{nullptr, a, &t}, "event");
    } else if (auto* s = std::get_if<ast::StateDecl>(&decl)) {
      enter(diags_, first, "state " + s->name.name, t.states, s->name, s, "state");
    } else if (auto* l = std::get_if<ast::LibraryDecl>(&decl)) {
      enter(diags_, first, "library " + l->name.name, t.libraries, l->name, l, "library");
    } else if (auto* m = std::get_if<ast::MetricDecl>(&decl)) {
      enter(diags_, first, "metric " + m->name.name, t.metrics, m->name, m, "metric");
    } else if (auto* o = std::get_if<ast::OutputDecl>(&decl)) {
      enter(diags_, first, "output " + o->name.name, t.outputs, o->name, o, "output");
      outputs_.emplace(o->name.name, o);
    } else if (auto* r = std::get_if<ast::RuleDecl>(&decl)) {
      enter(diags_, first, "rule " + r->name.name, t.rules, r->name, r, "rule");
    }
  }
}

void Checker::build_tables() {
  std::map<std::string, const ast::ModuleDecl*> declared;
  for (ast::File& f : program_.modules) {
    auto& t = tables_.emplace_back(std::make_unique<Table>());
    t->file = &f;
    const ast::ModuleDecl* m = f.module();
    t->module = m ? m->name.name : std::string();
    if (!m) continue;
    auto [it, inserted] = declared.emplace(m->name.name, m);
    if (inserted) {
      modules_.emplace(m->name.name, t.get());
    } else {
      diags_.error(Code::DuplicateModule, m->name.range, "module '" + m->name.name + "' is declared twice")
          .hints.push_back(first_declared(it->second->name.range));
    }
  }
  for (ast::File& f : program_.rule_files) {
    auto& t = tables_.emplace_back(std::make_unique<Table>());
    t->file = &f;
  }
  for (auto& t : tables_) declare_names(*t);

  std::vector<std::string> known;
  for (const auto& [name, _] : modules_) known.push_back(name);
  for (auto& t : tables_) {
    for (ast::Decl& decl : t->file->decls) {
      auto* use = std::get_if<ast::UseDecl>(&decl);
      if (!use) continue;
      for (const ast::Ident& m : use->modules) {
        auto it = modules_.find(m.name);
        t->uses.push_back({m.name, m.range, it == modules_.end() ? nullptr : it->second, false});
        if (it != modules_.end()) continue;
        diag::Diagnostic& d = diags_.error(Code::UnknownModule, m.range, "unknown module '" + m.name + "'");
        if (auto best = closest(m.name, known))
          d.hints.push_back("did you mean " + *best + "?");
        else if (!known.empty())
          d.hints.push_back("known modules: " + join(known));
      }
    }
  }
}

void Checker::check_uses(Table& t) {
  for (const UsedModule& u : t.uses) {
    if (!u.table || u.referenced || u.table == &t || t.has_unresolved) continue;
    diags_
        .warning(Code::UnusedUse, u.range,
                 "module '" + u.name + "' is used but nothing in this file refers to it")
        .hints.push_back("remove `" + u.name + "` from `use`");
  }
}

// Libraries are found by file name in each process's maps, and only a module's events probe them:
// two ways to declare one that lints clean yet never attaches.
void Checker::check_libraries(Table& t) {
  for (ast::Decl& decl : t.file->decls) {
    auto* lib = std::get_if<ast::LibraryDecl>(&decl);
    if (!lib) continue;
    if (t.module.empty())
      diags_
          .warning(Code::LibraryNeverMatches, lib->name.range,
                   "library '" + lib->name.name + "' is declared in a rule file, where no probe can use it")
          .hints.push_back(
              "declare it in a module (a file that starts with `module NAME`) beside the events that "
              "probe it");
    for (const ast::LibraryPattern& p : lib->patterns)
      if (p.glob.find('/') != std::string::npos)
        diags_
            .warning(Code::LibraryNeverMatches, p.range,
                     "a library pattern matches a file's name, never its path: this one, with a '/', never "
                     "matches")
            .hints.push_back(
                "match the name (\"libfoo.so*\"), or probe one file by path: `uprobe "
                "\"/path/libfoo.so\":fn`");
  }
}

// What the loader can take, checked here so that `seam lint` refuses what `seam run` could not
// load (docs/language.md, "Limits"): every rule and metric on one event runs in one BPF program,
// which the verifier refuses past a size (its jumps are 16-bit). Counted per file: seam run puts
// every file's rules on one event into that program, which a set of files can overfill.
// Per file: the rules and metrics of one file. Per event: of every rule file checked together,
// in the set's order (a run and a bundle put every file's rules on one event into one program).
void Checker::check_rule_counts() {
  std::map<const ast::EventDecl*, size_t> on_event;
  for (auto& t : tables_) {
    if (!t->module.empty()) continue;
    size_t rules = 0;
    auto count = [&](const ast::Ident& name, const ast::EventDecl* event, const char* what) {
      if (++rules == kMaxRulesPerFile + 1)
        diags_
            .error(Code::TooManyRules, name.range,
                   std::string(what) + " '" + name.name + "' is past the limit of " +
                       std::to_string(kMaxRulesPerFile) + " rules and metrics in one file")
            .hints.push_back("split the file");
      if (event && ++on_event[event] == kMaxRulesPerEvent + 1) {
        std::string event_name =
            event->module.empty() ? event->name.name : event->module + "." + event->name.name;
        diags_
            .error(Code::TooManyRules, name.range,
                   std::string(what) + " '" + name.name + "' is past the limit of " +
                       std::to_string(kMaxRulesPerEvent) + " rules and metrics on event '" + event_name +
                       "' in all the rule files together")
            .hints.push_back(
                "every file's rules on that event run in one BPF program, which the kernel refuses past "
                "that size: drop or merge some");
      }
    };
    for (ast::Decl& decl : t->file->decls) {
      if (auto* r = std::get_if<ast::RuleDecl>(&decl))
        count(r->name, r->when ? nullptr : r->resolved_event, "rule");
      if (auto* m = std::get_if<ast::MetricDecl>(&decl)) count(m->name, m->resolved_event, "metric");
    }
  }
}

void Checker::run() {
  build_tables();
  // Aliases first, so that every alias error is reported once, at the alias.
  for (auto& t : tables_)
    for (ast::Decl& decl : t->file->decls)
      if (auto* a = std::get_if<ast::AliasDecl>(&decl)) resolve_alias(*a, *t);
  for (auto& t : tables_)
    for (ast::Decl& decl : t->file->decls)
      if (auto* en = std::get_if<ast::EnumDecl>(&decl)) check_enum(*t, *en);
  for (auto& t : tables_)
    for (ast::Decl& decl : t->file->decls) {
      if (auto* e = std::get_if<ast::EventDecl>(&decl)) check_event(*t, *e);
      if (auto* s = std::get_if<ast::StateDecl>(&decl)) check_state(*t, *s);
      if (auto* o = std::get_if<ast::OutputDecl>(&decl)) check_output(*o);
    }
  for (auto& t : tables_)
    for (ast::Decl& decl : t->file->decls) {
      if (auto* m = std::get_if<ast::MetricDecl>(&decl)) check_metric(*t, *m);
      if (auto* r = std::get_if<ast::RuleDecl>(&decl)) check_rule(*t, *r);
      if (auto* r = std::get_if<ast::RouteDecl>(&decl)) check_route(*t, *r);
    }
  // Syntax errors drop declarations that may have referred to a used module: no W0003 there.
  for (const diag::Diagnostic& d : diags_.all())
    if (d.severity == diag::Severity::Error)
      for (auto& t : tables_)
        if (t->file->source && t->file->source->shown() == d.path) t->has_unresolved = true;
  // A file whose rules tuning disabled may use a module nothing left refers to: not a finding.
  for (auto& t : tables_)
    if (t->file->source && std::find(program_.trimmed_files.begin(), program_.trimmed_files.end(),
                                     t->file->source->path()) != program_.trimmed_files.end())
      t->has_unresolved = true;
  for (auto& t : tables_) check_uses(*t);
  for (auto& t : tables_) check_libraries(*t);
  check_rule_counts();
  check_metric_names_across_files();
  for (auto& t : tables_) check_scopes(*t);
}

// Every rule file of a run (and of a bundle) is one object, and each metric is one Prometheus
// family: two files may not declare one metric name.
void Checker::check_metric_names_across_files() {
  std::map<std::string, SourceRange> first;
  for (auto& t : tables_) {
    if (!t->module.empty()) continue;
    std::map<std::string, SourceRange> in_file;  // a file's own duplicates are reported by declare_names
    for (ast::Decl& decl : t->file->decls) {
      auto* m = std::get_if<ast::MetricDecl>(&decl);
      if (!m || m->name.name.empty() || !in_file.emplace(m->name.name, m->name.range).second) continue;
      auto [at, inserted] = first.emplace(m->name.name, m->name.range);
      if (!inserted)
        diags_.error(Code::DuplicateName, m->name.range, "metric '" + m->name.name + "' is declared twice")
            .hints.push_back(first_declared(at->second));
    }
  }
}

void check(Program& program) {
  apply_tuning(program);
  Checker(program).run();
  program.diagnostics.sort();
}

}  // namespace seam::check
