// `scope KIND ["ARG"]`: kept as written; compiler/check/scope.cpp says whether it makes sense.
#include "compiler/parse/builder.hpp"
#include "compiler/parse/grammar.hpp"

namespace seam::parse {

ast::ScopeDecl Builder::scope(const Node& n) {
  ast::ScopeDecl s;
  s.kind = ident(*n.children[0]);
  s.range = range(n);
  if (n.children.size() > 1) {
    s.has_argument = true;
    s.argument = string_value(*n.children[1]);
    s.argument_range = range(*n.children[1]);
  }
  return s;
}

}  // namespace seam::parse
