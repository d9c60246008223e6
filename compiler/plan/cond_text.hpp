#pragma once
// A kernel predicate (plan::Cond) as a person reads it, for the plan's JSON and comments:
// `(id == 16 || id == 44) && pid == 1234`. Values are named as rules name them where the plan
// still knows the name (tracepoint fields, builtins), else by their kind (`arg1`, `saved[0]`).
#include <string>

#include "compiler/plan/sites.hpp"

namespace seam::plan {

std::string cond_text(const Cond& cond);
std::string value_text(const Value& value);

}  // namespace seam::plan
