#pragma once
// A tuned rule's effective clauses as one-line text (`seam lint`, `seam run --dry-run`), taken
// from the source text of the rule and of the overrides that changed it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ast/ast.hpp"

namespace seam::check {

// Source text on one line: comments dropped, each run of whitespace one space.
std::string squash(std::string_view text);

// "on syscalls.futex", "where duration > 5ms and ...", "except comm == \"x\"", "alert warning
// \"...\"", "limit 10 per 1m", "tags syscalls". `where_text` replaces the rule's own condition text.
std::vector<std::string> effective_clauses(const ast::RuleDecl& rule,
                                           const std::optional<std::string>& where_text);

}  // namespace seam::check
