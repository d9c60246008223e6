#pragma once
// The EnumNamer of a plan: names from the enum tables the plan carries (the modules' `enum`
// declarations), so that enum-typed fields print as cudaMemcpyHostToDevice rather than 1.
#include "compiler/plan/plan.hpp"
#include "runtime/output/alert.hpp"

namespace seam::runtime {

// Empty (a null function) when the plan has no enums.
EnumNamer plan_enum_namer(const plan::Plan& plan);

}  // namespace seam::runtime
