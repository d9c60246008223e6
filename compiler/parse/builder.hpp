#pragma once
// Turns the parse tree of one declaration into its AST node, with exact source ranges, decoded
// literals and the problems only a built value can show (E0005, E0203, holes in messages).
#include <map>
#include <optional>
#include <string>

#include "compiler/ast/ast.hpp"
#include "compiler/diag/diagnostic.hpp"
#include "compiler/parse/tree.hpp"

namespace seam::parse {

class Builder {
 public:
  Builder(const SourceFile& source, diag::Diagnostics& diags) : source_(source), diags_(diags) {}

  // The name of the file's `module`, given to the events, aliases and states declared after it.
  void set_module(std::string name) { module_ = std::move(name); }

  // `decl` is the single child of the tree parse_declaration returned.
  ast::Decl declaration(const Node& decl);

  SourceRange range(const Node& n) const;

 private:
  // expressions (builder_expr.cpp)
  ast::ExprPtr expr(const Node& n);
  ast::ExprPtr number(const Node& n);
  ast::ExprPtr binary_chain(const Node& n, ast::BinaryOp op);
  ast::ExprPtr arithmetic_chain(const Node& n);
  ast::Ident ident(const Node& n) const;
  ast::QualName qualname(const Node& n) const;
  std::string string_value(const Node& n);
  int64_t duration_ns(const Node& n, const char* what);
  uint64_t integer(const Node& n);

  // declarations (builder_decl.cpp, builder_probe.cpp, builder_rule.cpp)
  ast::ProbeSpec probe(const Node& n, ast::ProbeKind bare_kind);
  void library_ref(const Node& n, ast::ProbeSpec& spec);
  void fields(const Node& list, bool is_result, std::vector<ast::FieldDecl>& out);
  void field_docs(std::vector<ast::FieldDecl>& fields);
  ast::EventDecl event(const Node& n, bool is_span);
  ast::LibraryDecl library(const Node& n);
  ast::ScopeDecl scope(const Node& n);
  ast::StateDecl state(const Node& n);
  ast::EnumDecl enumeration(const Node& n);
  ast::StateTransition transition(const Node& n);
  ast::RuleDecl rule(const Node& n);
  ast::RuleDecl shorthand(const Node& n);
  void rule_clause(const Node& clause, ast::RuleDecl& rule);
  ast::Alert alert(const Node& n);
  ast::Limit limit(const Node& n);
  ast::Group group(const Node& n);
  ast::MetricDecl metric(const Node& n);
  ast::OutputDecl output(const Node& n);
  ast::RouteDecl route(const Node& n);
  std::string doc(const Node& decl) const;

  // tuning and sets (builder_tuning.cpp)
  ast::ExprPtr membership(const Node& compare);
  std::vector<ast::ExprPtr> set_items(const Node& set_literal);
  ast::ListDecl list(const Node& n);
  ast::ToggleDecl toggle(const Node& n);
  ast::OverrideDecl override_rule(const Node& n);

  const SourceFile& source_;
  diag::Diagnostics& diags_;
  std::string module_;
  bool where_from_comparison_ = false;
  std::map<std::string, std::vector<ast::ExprPtr>>
      lists_;  // `list` items, by name, for `x in NAME`  // a shorthand's `> 10ms`, which one `where` may
               // join
};

}  // namespace seam::parse
