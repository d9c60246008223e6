#pragma once
// The library paths in /etc/ld.so.cache (glibc's "glibc-ld.so.cache1.1" format, alone or after
// the old "ld.so-1.7.0" table), read from the file: no ldconfig process.
#include <string>
#include <string_view>
#include <vector>

namespace seam::runtime::discover {

// Full paths of every entry, in cache order; empty when the bytes are not a cache we know.
std::vector<std::string> parse_ld_cache(std::string_view bytes);

std::vector<std::string> read_ld_cache(const char* path = "/etc/ld.so.cache");

// Folders searched besides the cache (CUDA's libraries are often only there).
const std::vector<std::string>& standard_library_dirs();

}  // namespace seam::runtime::discover
