#pragma once
// Files compiled into the seam binary (see cmake/Embed.cmake): the BPF-side templates and
// libbpf's helper headers, so that building a BPF program needs nothing installed but clang.
#include <optional>
#include <span>
#include <string_view>

namespace seam::embedded {

struct File {
  std::string_view name;
  std::string_view content;
};

std::span<const File> all();

inline std::optional<std::string_view> find(std::string_view name) {
  for (const File& f : all())
    if (f.name == name) return f.content;
  return std::nullopt;
}

}  // namespace seam::embedded
