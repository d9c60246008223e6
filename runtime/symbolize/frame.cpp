#include "runtime/symbolize/frame.hpp"

#include <cinttypes>
#include <cstdio>

namespace seam::runtime::symbolize {

std::string format_frame(const Frame& f) {
  char buf[64];
  std::string out;
  if (f.symbol.empty()) {
    std::snprintf(buf, sizeof buf, "0x%" PRIx64, f.addr);
    out = buf;
  } else {
    out = f.symbol;
    if (f.offset != 0) {
      std::snprintf(buf, sizeof buf, "+0x%" PRIx64, f.offset);
      out += buf;
    }
  }
  out += " (";
  out += f.module;
  out += ')';
  return out;
}

}  // namespace seam::runtime::symbolize
