#pragma once
// docs/stdlib.md from the parsed standard library: every module, library, event (with its
// probes, fields, types and units), alias and state, with the doc comments written above them
// and at the end of each field's line. `seam stdlib doc` prints it; a unit test checks that the
// checked-in docs/stdlib.md is not stale.
#include <string>
#include <vector>

#include "compiler/ast/ast.hpp"
#include "compiler/diag/result.hpp"

namespace seam::cli {

// The markdown for `modules` (sorted by module name in the output).
std::string stdlib_markdown(const std::vector<const ast::File*>& modules);

// The markdown for the stdlib in `dirs` (the default stdlib when empty); the error is the
// diagnostics' text when a module does not check.
Result<std::string> stdlib_markdown_from(const std::vector<std::string>& dirs);

}  // namespace seam::cli
