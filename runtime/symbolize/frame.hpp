#pragma once
// One symbolized stack frame, as output formats print it.
#include <cstdint>
#include <string>

namespace seam::runtime::symbolize {

struct Frame {
  uint64_t addr = 0;
  std::string symbol;   // "" when unknown
  uint64_t offset = 0;  // from the symbol's start; from the module's start when the symbol is unknown
  std::string module;   // the file as the process sees it, "[kernel]", "[nvidia]", or "[unknown]"
};

inline constexpr const char* kUnknownModule = "[unknown]";

// "cudaStreamSynchronize+0x1c (/usr/lib/libcudart.so.12)", "0x7f3a12 ([unknown])".
std::string format_frame(const Frame& f);

}  // namespace seam::runtime::symbolize
