#include "runtime/run/prebuilt_objects.hpp"

#include "compiler/codegen/prebuilt_bpf.hpp"

namespace seam::runtime {

std::span<const uint8_t> prebuilt_bpf_object(std::string_view name) {
  if (name == codegen::kPyWalk) return prebuilt_py_walk();
  if (name == codegen::kStackCopy) return prebuilt_stack_copy();
  if (name == codegen::kRecord) return prebuilt_record();
  if (name == codegen::kPyGil) return prebuilt_py_gil();
  return {};
}

}  // namespace seam::runtime
