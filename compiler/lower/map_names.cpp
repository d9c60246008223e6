#include "compiler/lower/map_names.hpp"

#include <cstdint>

namespace seam::lower {

namespace {

// FNV-1a, 64 bits: stable across builds and machines (std::hash is neither).
uint64_t fnv1a(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string readable_part(const std::string& readable) {
  std::string out;
  for (char c : readable) {
    if (out.size() == 5) break;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    out += (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
  }
  return out;
}

}  // namespace

std::string map_name_candidate(char kind, const std::string& readable, const std::string& identity) {
  static const char kHex[] = "0123456789abcdef";
  uint64_t h = fnv1a(std::string(1, kind) + '\n' + identity);
  std::string hash(7, '0');
  for (size_t i = 0; i < hash.size(); ++i) hash[hash.size() - 1 - i] = kHex[(h >> (4 * i)) & 0xf];
  return std::string(1, kind) + "_" + readable_part(readable) + "_" + hash;
}

std::string MapNamer::name(char kind, const std::string& readable, const std::string& identity) {
  std::string whole = std::string(1, kind) + '\n' + identity;
  for (int salt = 0;; ++salt) {
    std::string name =
        map_name_candidate(kind, readable, salt == 0 ? identity : identity + "\n#" + std::to_string(salt));
    auto [it, inserted] = taken_.emplace(name, whole);
    if (inserted || it->second == whole) return name;
  }
}

}  // namespace seam::lower
