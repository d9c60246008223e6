#pragma once
// What each file declares, and the lookups of names across files and `use`d modules. Internal to
// the checker: check.cpp builds one Table per file, then rules, metrics and states look names up.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ast/ast.hpp"
#include "compiler/diag/diagnostic.hpp"

namespace seam::check {

struct Table;

// An event name: a declared event, or an alias of one.
struct EventEntry {
  const ast::EventDecl* event = nullptr;
  ast::AliasDecl* alias = nullptr;
  Table* owner = nullptr;
};

struct UsedModule {
  std::string name;
  SourceRange range;
  Table* table = nullptr;  // null when the module is unknown (already reported)
  bool referenced = false;
};

// The names one file declares. `module` is empty for rule files.
struct Table {
  ast::File* file = nullptr;
  std::string module;
  std::map<std::string, EventEntry> events;  // events and aliases share one namespace
  std::map<std::string, const ast::StateDecl*> states;
  std::map<std::string, const ast::LibraryDecl*> libraries;
  std::map<std::string, const ast::MetricDecl*> metrics;
  std::map<std::string, const ast::OutputDecl*> outputs;
  std::map<std::string, const ast::RuleDecl*> rules;
  std::vector<UsedModule> uses;
  // A name in this file did not resolve, or the file has errors: a name that would have used a
  // module may be missing, so W0003 (unused `use`) is not reported for it.
  bool has_unresolved = false;

  // "cuda.stream_sync" for a module's event, "stream_sync" for a rule file's own.
  std::string qualify(const std::string& name) const { return module.empty() ? name : module + "." + name; }
  UsedModule* find_use(const std::string& name);
};

// The display name of an event: "cuda.stream_sync".
std::string event_name(const ast::EventDecl& e);

}  // namespace seam::check
