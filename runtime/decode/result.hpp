#pragma once
// The runtime's result type is seam::Result (compiler/diag/result.hpp); these names keep the
// runtime's code unqualified.
#include "compiler/diag/result.hpp"

namespace seam::runtime {

using seam::Error;
using seam::Result;

}  // namespace seam::runtime
