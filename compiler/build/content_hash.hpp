#pragma once
// A 128-bit content hash (XXH3) as 32 hex digits: cache keys and kernel BTF identity.
#include <string>
#include <string_view>

namespace seam::build {

class ContentHash {
 public:
  ContentHash();
  ~ContentHash();
  ContentHash(const ContentHash&) = delete;
  ContentHash& operator=(const ContentHash&) = delete;

  // Adds `part` with its length in front, so that ("ab","c") and ("a","bc") differ.
  ContentHash& add(std::string_view part);
  std::string hex() const;

 private:
  void* state_;
};

// The hash of a file's contents; empty when it cannot be read.
// Larger files are not hashed (rule files are capped at 1 MiB when read).
inline constexpr uint64_t kMaxHashedFileBytes = 64ull << 20;
std::string hash_file(const std::string& path);

}  // namespace seam::build
