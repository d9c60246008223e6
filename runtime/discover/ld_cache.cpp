#include "runtime/discover/ld_cache.hpp"

#include <cstdint>
#include <cstring>

#include "runtime/elf/proc_maps.hpp"

namespace seam::runtime::discover {
namespace {

constexpr std::string_view kNewMagic = "glibc-ld.so.cache1.1";
constexpr size_t kNewHeaderSize = 48;  // magic+version 20, nlibs, len_strings, flags+pad, ext, unused[3]
constexpr size_t kNewEntrySize = 24;   // flags, key, value, osversion, hwcap(8)
constexpr size_t kValueField = 8;      // offset of `value` (the path's string offset) in an entry

uint32_t load_u32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

std::vector<std::string> parse_ld_cache(std::string_view bytes) {
  std::vector<std::string> paths;
  // The new table comes first, or after the old format's table; its string offsets are
  // relative to its own header.
  size_t base = bytes.find(kNewMagic);
  if (base == std::string_view::npos || bytes.size() - base < kNewHeaderSize) return paths;
  std::string_view table = bytes.substr(base);
  uint32_t nlibs = load_u32(table.data() + 20);
  if (nlibs > (table.size() - kNewHeaderSize) / kNewEntrySize) return paths;
  paths.reserve(nlibs);
  for (uint32_t i = 0; i < nlibs; ++i) {
    const char* entry = table.data() + kNewHeaderSize + size_t{i} * kNewEntrySize;
    uint32_t value = load_u32(entry + kValueField);
    if (value >= table.size()) continue;
    std::string_view rest = table.substr(value);
    size_t nul = rest.find('\0');
    if (nul == std::string_view::npos || nul == 0) continue;
    paths.emplace_back(rest.substr(0, nul));
  }
  return paths;
}

std::vector<std::string> read_ld_cache(const char* path) {
  std::string bytes;
  if (!elf::read_whole_file(path, bytes)) return {};
  return parse_ld_cache(bytes);
}

const std::vector<std::string>& standard_library_dirs() {
  static const std::vector<std::string> dirs = {"/lib",
                                                "/usr/lib",
                                                "/lib/x86_64-linux-gnu",
                                                "/usr/lib/x86_64-linux-gnu",
                                                "/usr/local/lib",
                                                "/usr/local/cuda/lib",
                                                "/usr/local/cuda/lib64"};
  return dirs;
}

}  // namespace seam::runtime::discover
