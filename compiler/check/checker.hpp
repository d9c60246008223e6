#pragma once
// The checker's internals, shared by its .cpp files: names.cpp (lookups), exprs.cpp (types and
// units), decls.cpp (events, probes, states, metrics, outputs, routes), rules.cpp (rules and
// warnings), check.cpp (driving it all). Not part of the public API: see check.hpp.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/check/program.hpp"
#include "compiler/check/tables.hpp"

namespace seam::check {

enum class Place { Where, While, When, Route, SpanKey };

// What the names in one expression may refer to.
struct ExprContext {
  Place place = Place::Where;
  Table* table = nullptr;
  const ast::RuleDecl* rule = nullptr;
  const ast::EventDecl* event = nullptr;  // the rule's, metric's or span's own event
  bool event_failed = false;              // it did not resolve (reported): stay quiet about its fields
  const ast::Correlation* after = nullptr;
  const ast::Expr* pending_ok = nullptr;  // the one `pending` allowed: `where pending > D`
  std::optional<ast::Type> value_type;    // windowed rules: the type of `value`
};

class Checker {
 public:
  explicit Checker(Program& program) : program_(program), diags_(program.diagnostics) {}
  void run();

  // names.cpp
  const ast::EventDecl* resolve_event(Table& t, const ast::QualName& name,
                                      diag::Code not_found = diag::Code::UnknownEvent, bool report = true);
  const ast::EventDecl* resolve_alias(ast::AliasDecl& alias, Table& owner);
  const ast::StateDecl* resolve_state(Table& t, const ast::QualName& name);
  const ast::MetricDecl* resolve_metric(Table& t, const ast::Ident& name);
  const ast::LibraryDecl* resolve_library(Table& t, const ast::Ident& name);
  void check_state_reader(Table& t, ast::StateDecl& s);

  // exprs.cpp
  void check_expr(ExprContext& ctx, ast::Expr& e);
  void resolve_hole(ExprContext& ctx, ast::MessagePart& part);
  void require_duration(ast::Expr& e, const char* what);
  void require_boolean(ast::Expr& e, const char* clause);

  // decls.cpp
  void check_event(Table& t, ast::EventDecl& e);
  void check_state(Table& t, ast::StateDecl& s);
  void check_metric(Table& t, ast::MetricDecl& m);
  void check_output(ast::OutputDecl& o);
  void check_route(Table& t, ast::RouteDecl& r);

  // rules.cpp
  void check_rule(Table& t, ast::RuleDecl& r);
  void check_limit_scope(const ast::RuleDecl& r);

  // scope.cpp
  void check_scopes(Table& t);

 private:
  struct Scope {
    std::vector<Table*> tables;
    std::string bare;
    bool reported = false;
  };
  Scope scope_of(Table& t, const ast::QualName& name, bool report);
  void mark_referenced(Table& t, const Table* found_in);
  void build_tables();
  void declare_names(Table& t);
  void check_uses(Table& t);

  void check_probe(Table& t, ast::ProbeSpec& p);
  void check_span_key(Table& t, ast::EventDecl& e, ast::Expr& key);
  bool resolve_call(ExprContext& ctx, ast::Expr& e, ast::Call& call);
  void resolve_name(ExprContext& ctx, ast::Expr& e, ast::NameRef& ref);
  void check_index(ast::Expr& e, ast::NameRef& ref, uint32_t array_len);
  void check_arithmetic(ast::Expr& e, ast::Binary& b);
  void check_table(ExprContext& ctx, ast::Expr& e, ast::Table& table);
  void check_fd_is(ExprContext& ctx, ast::Expr& e, ast::Call& call);
  void check_binary(ExprContext& ctx, ast::Expr& e, ast::Binary& b);
  void check_name_constant(const ExprContext& ctx, const ast::Binary& b);
  void check_libraries(Table& t);
  void check_rule_counts();
  void check_metric_names_across_files();
  void check_never_fires(const ast::RuleDecl& r, const ast::Expr& where);

  // enums.cpp
  void check_enum(Table& t, const ast::EnumDecl& en);
  const ast::EnumDecl* find_enum(const std::string& module, const std::string& name) const;
  bool is_unknown_bare_name(const ExprContext& ctx, const ast::Expr& e) const;
  bool resolve_enumerator(ast::Expr& e, const ast::Type& compared_with);
  void check_comparison_operands(ExprContext& ctx, ast::Binary& b);
  bool check_identity_test(const ast::Binary& b);

  Program& program_;
  diag::Diagnostics& diags_;
  std::vector<std::unique_ptr<Table>> tables_;
  std::map<std::string, Table*> modules_;
  std::map<std::string, const ast::OutputDecl*> outputs_;
  std::map<const ast::AliasDecl*, int> alias_state_;  // 1 resolving, 2 done
  std::map<const ast::StateDecl*, bool> state_has_set_;
  std::map<std::pair<std::string, std::string>, const ast::EnumDecl*> enums_;  // (module, name)
};

// Helpers shared by the .cpp files.
std::string fields_hint(const ast::EventDecl& e);              // "x has fields: a, b, duration, pid, ..."
std::optional<ast::Type> builtin_type(std::string_view name);  // pid tid comm cgroup uid cpu time, identity
// container, container_id, pod, namespace: known from the cgroup in user space (identity bits).
bool is_identity_name(std::string_view name);
const ast::FieldDecl* find_field(const ast::EventDecl& e, std::string_view name);
std::string first_declared(const SourceRange& r);  // "first declared at path:line"
std::string describe(const ast::Type& t);          // "a duration", "str", ...

}  // namespace seam::check
