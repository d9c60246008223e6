#pragma once
// seam's own BPF functions that are the same C in every program that calls them: seam's build
// compiles each once (cli/prebuild/, `seam-prebuild NAME OUT`) and embeds the object
// (runtime/run/prebuilt_objects.hpp); a program that calls one declares it __hidden, and its
// build links the object after the parts (build::BuildOptions::link_with) instead of compiling
// it with clang at every cold start. The verifier checks a __hidden function in its caller's
// context, as if it were inline. Where seam's build could not make one (no clang or kernel BTF
// there), its object is empty and the programs compile the function inline, as its header says.
#include <string>
#include <string_view>
#include <vector>

namespace seam::codegen {

inline constexpr const char* kPyWalk = "py_walk";        // py_walk.h, for a pystack (py_stack.h)
inline constexpr const char* kStackCopy = "stack_copy";  // stack_copy.h, for a ustack's copy
inline constexpr const char* kRecord = "record";         // seam_record.h's reserve and submit, to emit
inline constexpr const char* kPyGil = "py_gil";          // py_gil.h's gil_held test

struct PrebuiltBpf {
  std::string name;         // kPyWalk, ...: seam-prebuild's argument; seam_<name>.bpf.o
  std::string linked_flag;  // -DSEAM_<NAME>_LINKED: every rule build gets it when seam has the object
  std::vector<std::string> headers;       // what its source includes after seam_prelude.h
  std::vector<std::string> kernel_types;  // for its kernel_types.h (py_gil.h reads task_struct)
};

const std::vector<PrebuiltBpf>& prebuilt_bpf();
// Null for a name that is none of them.
const PrebuiltBpf* find_prebuilt_bpf(std::string_view name);
// The C seam's build compiles into the object.
std::string prebuilt_bpf_source(const PrebuiltBpf& p);
// The file name its source is built under (clang's messages, the object's line info).
std::string prebuilt_bpf_source_name(const PrebuiltBpf& p);

}  // namespace seam::codegen
