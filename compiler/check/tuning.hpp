#pragma once
// Tuning a rule pack from other files, before the checker sees it: `override rule NAME ...`
// (threshold, where, except, alert, limit, tags, disable/enable), `disable|enable rule|tag ...`,
// and the command line's --disable/--enable (Program::toggles). Disabled rules leave the AST, so
// nothing is lowered or attached for them; each rule's exceptions are joined to its `where` as
// `and not (...)`. Precedence, weakest first: a file's tag toggles, a file's rule toggles, the
// command line's tag toggles, its rule toggles. Two toggles of one level that disagree on a rule,
// or two overrides setting the same clause of a rule, are E0204; a name or tag that matches no
// rule is E0114 (with a did-you-mean); a threshold a rule has no comparison for is E0509.
#include "compiler/check/program.hpp"

namespace seam::check {

void apply_tuning(Program& program);

}  // namespace seam::check
