#pragma once
// Python's frame walk as seam's build made it (cli/prebuild/, cmake/EmbedObject.cmake); empty when
// the build machine could not build it, and then the programs compile the walk inline (py_stack.h).
#include <cstdint>
#include <span>

namespace seam::runtime {

std::span<const uint8_t> prebuilt_py_walk();

}  // namespace seam::runtime
