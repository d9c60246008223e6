#pragma once
// The running kernel's BTF, parsed once for whoever needs it at the same time: on kernels whose
// BTF file cannot be mapped (before 6.16), the feature probes (runtime/load/features.cpp, in a
// thread of their own) and the types header for clang (kernel_types.cpp) both want it, and a
// parse costs 8-50 ms. Where it can be mapped, neither parses it (btf_types.hpp). Users hold a shared_ptr;
// when the last lets go it is freed (it is several MB), and a later call parses again, unless a
// KeepVmlinuxBtf is alive: then the parse is kept until the last of those goes.
#include <memory>
#include <string>

#include "compiler/diag/result.hpp"

struct btf;

namespace seam::build {

// The kernel's BTF, or why there is none (ErrorCode::NotFound: the kernel has no BTF file).
Result<std::shared_ptr<const btf>> acquire_vmlinux_btf();

// While one is alive, a BTF parsed by acquire_vmlinux_btf() stays parsed after its users let go.
// A cold `seam run` holds one over its builds: where the BTF cannot be mapped, the loader hook's
// types header and the rules' are dumped one after the other from a parse (kernel_types.cpp),
// and without it the second parsed the BTF again (50 ms of CPU on the path to `ready`). Nothing
// is parsed because of it: a warm start, which dumps no types, never loads the BTF.
class KeepVmlinuxBtf {
 public:
  KeepVmlinuxBtf();
  ~KeepVmlinuxBtf();
  KeepVmlinuxBtf(const KeepVmlinuxBtf&) = delete;
  KeepVmlinuxBtf& operator=(const KeepVmlinuxBtf&) = delete;
};

// Whether a parse is kept now (tests).
bool vmlinux_btf_kept();

}  // namespace seam::build
