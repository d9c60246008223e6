#pragma once
// `output` and `route` declarations into the plan (plan::Output, plan::Route): the runtime builds
// its sinks and router from these, never from the AST (runtime/output/plan_outputs.hpp).
#include <vector>

#include "compiler/ast/ast.hpp"
#include "compiler/plan/plan.hpp"

namespace seam::lower {

// Every output and route of the files, in declaration order. A route condition the checker
// accepted is always one of: true/false, not, and/or, `severity OP word` (either side), or
// `rule ==|!=|startswith "text"`; anything else is a bug in seam (LowerError), never a route
// that silently selects nothing.
void lower_outputs(const std::vector<const ast::File*>& files, plan::Plan& plan);

}  // namespace seam::lower
