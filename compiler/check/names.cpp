// Looking names up: events and aliases, states, metrics and libraries, across a file's own
// declarations and the modules it `use`s, with did-you-mean hints when nothing matches.
#include <algorithm>

#include "compiler/check/checker.hpp"
#include "compiler/check/suggest.hpp"

namespace seam::check {

using diag::Code;

UsedModule* Table::find_use(const std::string& name) {
  for (UsedModule& u : uses)
    if (u.name == name) return &u;
  return nullptr;
}

std::string event_name(const ast::EventDecl& e) {
  return e.module.empty() ? e.name.name : e.module + "." + e.name.name;
}

void Checker::mark_referenced(Table& t, const Table* found_in) {
  for (UsedModule& u : t.uses)
    if (u.table && u.table == found_in) u.referenced = true;
}

// Where to look for a name: unqualified, the file itself and every used module; `mod.name`, that
// module alone, which the file must `use` (E0111) unless it is the file's own module.
Checker::Scope Checker::scope_of(Table& t, const ast::QualName& name, bool report) {
  Scope s;
  if (name.parts.size() == 1) {
    s.bare = name.parts[0].name;
    s.tables.push_back(&t);
    for (UsedModule& u : t.uses)
      if (u.table && u.table != &t) s.tables.push_back(u.table);
    return s;
  }
  if (name.parts.size() != 2) return s;
  const std::string& module = name.parts[0].name;
  s.bare = name.parts[1].name;
  if (module == t.module) {
    s.tables.push_back(&t);
  } else if (UsedModule* u = t.find_use(module); u && u->table) {
    u->referenced = true;
    s.tables.push_back(u->table);
  } else if (modules_.count(module) && !(u && !u->table)) {
    if (report) {
      diags_
          .error(Code::ModuleNotUsed, name.parts[0].range, "module '" + module + "' is not used in this file")
          .hints.push_back("add `use " + module + "`");
    }
    s.reported = true;
  } else if (u) {
    s.reported = true;  // `use` of an unknown module: already reported there
  }
  return s;
}

namespace {

const ast::EventDecl* follow(Checker& c, EventEntry& entry) {
  if (entry.event) return entry.event;
  return entry.alias ? c.resolve_alias(*entry.alias, *entry.owner) : nullptr;
}

template <class Map>
std::vector<Candidate> candidates_for(const Table& t, const ast::QualName& name, Map Table::*member,
                                      const std::vector<Table*>& extra) {
  std::vector<Candidate> out;
  std::vector<const Table*> tables = {&t};
  for (const UsedModule& u : t.uses)
    if (u.table) tables.push_back(u.table);
  for (const Table* x : extra) tables.push_back(x);
  for (const Table* table : tables)
    for (const auto& [n, _] : table->*member) {
      std::string q = table->qualify(n);
      out.push_back({name.parts.size() == 1 ? n : q, q});
    }
  return out;
}

}  // namespace

const ast::EventDecl* Checker::resolve_event(Table& t, const ast::QualName& name, Code not_found,
                                             bool report) {
  if (name.parts.empty()) return nullptr;
  Scope s = scope_of(t, name, report);
  if (s.reported) return nullptr;
  std::vector<const ast::EventDecl*> distinct;
  std::vector<std::string> names;
  bool found = false;
  for (Table* table : s.tables) {
    auto it = table->events.find(s.bare);
    if (it == table->events.end()) continue;
    found = true;
    mark_referenced(t, table);
    const ast::EventDecl* e = follow(*this, it->second);
    names.push_back(table->qualify(s.bare));
    if (e && std::find(distinct.begin(), distinct.end(), e) == distinct.end()) distinct.push_back(e);
  }
  if (!found) {
    if (!report) return nullptr;
    t.has_unresolved = true;
    std::string text = name.str();
    diag::Diagnostic& d =
        not_found == Code::UnknownAliasTarget
            ? diags_.error(not_found, name.range, "alias target '" + text + "' is not a known event")
            : diags_.error(not_found, name.range, "unknown event '" + text + "'");
    if (auto best = closest(text, candidates_for(t, name, &Table::events, {}))) {
      d.hints.push_back("did you mean " + *best + "?");
    } else if (name.parts.size() == 1) {
      for (const auto& [module, table] : modules_)
        if (table->events.count(text)) {
          d.hints.push_back(module + "." + text + " is in module " + module + ": add `use " + module + "`");
          break;
        }
    }
    return nullptr;
  }
  if (distinct.size() > 1) {
    if (report) {
      diags_
          .error(Code::AmbiguousName, name.range,
                 "'" + name.str() + "' is ambiguous: it could be " + join(names, " or "))
          .hints.push_back("write the qualified name, e.g. " + names.front());
    }
    return nullptr;
  }
  return distinct.empty() ? nullptr : distinct.front();
}

const ast::EventDecl* Checker::resolve_alias(ast::AliasDecl& alias, Table& owner) {
  int& state = alias_state_[&alias];
  if (state == 2) return alias.resolved;
  if (state == 1) {
    diags_.error(
        Code::UnknownAliasTarget, alias.target.range,
        "alias '" + alias.name.name + "' refers back to itself through '" + alias.target.str() + "'");
    return nullptr;
  }
  state = 1;
  alias.resolved = resolve_event(owner, alias.target, Code::UnknownAliasTarget);
  alias_state_[&alias] = 2;
  return alias.resolved;
}

const ast::StateDecl* Checker::resolve_state(Table& t, const ast::QualName& name) {
  if (name.parts.empty()) return nullptr;
  Scope s = scope_of(t, name, true);
  if (s.reported) return nullptr;
  std::vector<const ast::StateDecl*> found;
  std::vector<std::string> names;
  for (Table* table : s.tables) {
    auto it = table->states.find(s.bare);
    if (it == table->states.end()) continue;
    mark_referenced(t, table);
    found.push_back(it->second);
    names.push_back(table->qualify(s.bare));
  }
  if (found.empty()) {
    t.has_unresolved = true;
    diag::Diagnostic& d = diags_.error(Code::UnknownState, name.range, "unknown state '" + name.str() + "'");
    if (auto best = closest(name.str(), candidates_for(t, name, &Table::states, {})))
      d.hints.push_back("did you mean " + *best + "?");
    return nullptr;
  }
  if (found.size() > 1) {
    diags_
        .error(Code::AmbiguousName, name.range,
               "'" + name.str() + "' is ambiguous: it could be " + join(names, " or "))
        .hints.push_back("write the qualified name, e.g. " + names.front());
    return nullptr;
  }
  return found.front();
}

const ast::MetricDecl* Checker::resolve_metric(Table& t, const ast::Ident& name) {
  if (auto it = t.metrics.find(name.name); it != t.metrics.end()) return it->second;
  for (UsedModule& u : t.uses)
    if (u.table)
      if (auto it = u.table->metrics.find(name.name); it != u.table->metrics.end()) {
        u.referenced = true;
        return it->second;
      }
  t.has_unresolved = true;
  std::vector<std::string> known;
  for (const auto& [n, _] : t.metrics) known.push_back(n);
  diag::Diagnostic& d = diags_.error(Code::UnknownMetric, name.range, "unknown metric '" + name.name + "'");
  if (auto best = closest(name.name, known))
    d.hints.push_back("did you mean " + *best + "?");
  else
    d.hints.push_back("declare it: `metric " + name.name + " on EVENT hist duration`");
  return nullptr;
}

const ast::LibraryDecl* Checker::resolve_library(Table& t, const ast::Ident& name) {
  if (auto it = t.libraries.find(name.name); it != t.libraries.end()) return it->second;
  std::vector<std::string> known;
  for (const auto& [n, _] : t.libraries) known.push_back(n);
  std::string where = t.module.empty() ? "this file" : "module " + t.module;
  diag::Diagnostic& d = diags_.error(Code::UnknownLibrary, name.range,
                                     "unknown library '" + name.name + "': not declared in " + where);
  if (auto best = closest(name.name, known))
    d.hints.push_back("did you mean " + *best + "?");
  else
    d.hints.push_back("declare it: `library " + name.name + " = \"lib" + name.name +
                      ".so*\"`, or quote a path");
  return nullptr;
}

}  // namespace seam::check
