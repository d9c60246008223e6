#pragma once
// The seam parser: one rule or module file in, its AST and syntax diagnostics out.
// The grammar is in grammar.hpp and documented in docs/language.md.
#include <cstddef>

#include "compiler/ast/ast.hpp"
#include "compiler/diag/diagnostic.hpp"
#include "compiler/source/source_file.hpp"

namespace seam::parse {

struct Limits {
  size_t max_file_bytes = 1 << 20;
  int max_nesting = 64;
};

// Parses one file. Never throws for bad input: every problem becomes a diagnostic (E0001 syntax-error with
// "expected ..." at the exact position; E0002 file-too-large; E0003 nesting-too-deep; E0005 invalid-literal;
// E0006 module-misplaced when `module` is not the first declaration or appears twice).
// Recovers after a syntax error at the next line starting in column 1 with a declaration keyword, so
// several errors in one file are all reported in source order. Returns what it could parse.
// Also reported here, because the AST keeps no trace of them: E0203 duplicate-clause (a rule clause
// written twice), E0303 missing-unit / E0301 unit-mismatch for `limit N per D` and `interval D`.
ast::File parse_file(const SourceFile& source, diag::Diagnostics& diags, const Limits& limits = {});

}  // namespace seam::parse
