#pragma once
// The parse tree of one declaration: PEGTL nodes for the rules listed in tree.cpp's selector.
// The builder (builder.hpp) turns it into AST nodes.
#include <memory>

#include <tao/pegtl/contrib/parse_tree.hpp>

#include "compiler/parse/nesting.hpp"

namespace seam::parse {

using Node = tao::pegtl::parse_tree::node;

// Parses the declaration that starts at `in` (leading whitespace and comments allowed).
// Throws SyntaxFailure; on return `in` stands right after the declaration.
std::unique_ptr<Node> parse_declaration(ParseInput& in);

}  // namespace seam::parse
