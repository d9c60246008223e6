#pragma once
// The dynamic loader hook's BPF C (bpf-templates/loader_notice.c.tmpl, runtime/run/loader_hook.hpp):
// seam's own program, the same for every run, built at seam's build time (cli/prebuild/) and,
// where that could not be done, at start.
#include <string>

namespace seam::codegen {

// The file name the hook's source is built under (clang's messages, the object's line info).
inline constexpr const char* kLoaderHookSourceName = "seam_loader_notice.bpf.c";

std::string loader_hook_source();

}  // namespace seam::codegen
