#pragma once
// seam's own BPF functions as its build made them (compiler/codegen/prebuilt_bpf.hpp, cli/prebuild/,
// cmake/EmbedObject.cmake); each empty where the build machine could not build it, and then the
// programs compile that function inline.
#include <cstdint>
#include <span>
#include <string_view>

namespace seam::runtime {

std::span<const uint8_t> prebuilt_py_walk();
std::span<const uint8_t> prebuilt_stack_copy();
std::span<const uint8_t> prebuilt_record();
std::span<const uint8_t> prebuilt_py_gil();
// By codegen::PrebuiltBpf::name; empty for a name that is none of them.
std::span<const uint8_t> prebuilt_bpf_object(std::string_view name);

}  // namespace seam::runtime
