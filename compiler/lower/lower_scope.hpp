#pragma once
// The rule file's `scope` (plan::Scope) and the workload libraries the modules mark: what the
// runtime's scope keeper needs to decide which processes the file's programs run for.
#include "compiler/lower/lower.hpp"

namespace seam::lower {

void lower_scope(const Input& input, const Options& options, plan::Program& program);

}  // namespace seam::lower
