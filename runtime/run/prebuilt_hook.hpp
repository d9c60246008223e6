#pragma once
// The dynamic loader hook's object as seam's build made it (cli/prebuild/, cmake/EmbedObject.cmake);
// empty when the build machine could not build it, and then LoaderHook builds it at start.
#include <cstdint>
#include <span>

namespace seam::runtime {

std::span<const uint8_t> prebuilt_loader_hook();

}  // namespace seam::runtime
