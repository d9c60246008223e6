#pragma once
// The running kernel's BTF, parsed once for whoever needs it at the same time: on a cold start
// the feature probes (runtime/load/features.cpp, in a thread of their own) and the types header
// for clang (kernel_types.cpp) both want it, and a parse costs 25-50 ms. Users hold a shared_ptr;
// when the last lets go it is freed (it is several MB), and a later call parses again.
#include <memory>
#include <string>

#include "compiler/diag/result.hpp"

struct btf;

namespace seam::build {

// The kernel's BTF, or why there is none (ErrorCode::NotFound: the kernel has no BTF file).
Result<std::shared_ptr<const btf>> acquire_vmlinux_btf();

}  // namespace seam::build
