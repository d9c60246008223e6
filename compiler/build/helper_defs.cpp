#include "compiler/build/helper_defs.hpp"

#include <unordered_set>

namespace seam::build {

namespace {

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

void add_names(std::string_view text, std::unordered_set<std::string_view>& names) {
  for (size_t at = text.find("bpf_"); at != std::string_view::npos; at = text.find("bpf_", at + 1)) {
    if (at > 0 && identifier_char(text[at - 1])) continue;
    size_t end = at;
    while (end < text.size() && identifier_char(text[end])) ++end;
    names.insert(text.substr(at, end - at));
  }
}

// The helper a declaration line declares: the name in `(*bpf_name)`; empty if it is not one.
std::string_view declared(std::string_view line) {
  size_t open = line.find("(*bpf_");
  if (open == std::string_view::npos || line.back() != ';') return {};
  size_t close = line.find(')', open);
  if (close == std::string_view::npos) return {};
  return line.substr(open + 2, close - open - 2);
}

bool comment_line(std::string_view line) {
  size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return false;
  return line.substr(first, 2) == "/*" || line[first] == '*';
}

}  // namespace

std::string helper_defs_used_by(std::string_view defs, std::span<const std::string_view> uses) {
  std::unordered_set<std::string_view> names;
  for (std::string_view text : uses) add_names(text, names);
  std::string out;
  out.reserve(defs.size() / 4);
  size_t declarations = 0;
  for (size_t at = 0; at < defs.size();) {
    size_t end = defs.find('\n', at);
    if (end == std::string_view::npos) end = defs.size();
    std::string_view line = defs.substr(at, end - at);
    at = end + 1;
    if (line.starts_with("static ")) {
      std::string_view name = declared(line);
      if (name.empty()) return std::string(defs);  // not the shape this filter knows
      ++declarations;
      if (!names.contains(name)) continue;
    } else if (comment_line(line)) {
      continue;
    }
    out.append(line).push_back('\n');
  }
  return declarations ? out : std::string(defs);
}

}  // namespace seam::build
