#include "runtime/elf/resolve.hpp"

#include <elf.h>

#include <algorithm>
#include <map>

namespace seam::runtime::elf {
namespace {

struct Query {
  std::string_view name;
  std::string_view version;  // empty: any
  bool glob = false;
};

Query parse_query(std::string_view q) {
  Query out;
  size_t at = q.find('@');
  out.name = q.substr(0, at);
  if (at != std::string_view::npos) {
    std::string_view v = q.substr(at + 1);
    if (!v.empty() && v.front() == '@') v.remove_prefix(1);
    out.version = v;
  }
  out.glob = is_glob(out.name);
  return out;
}

// The version from .gnu.version_d, or a literal "@VER" suffix that some .symtab names carry.
std::string_view version_of(const Symbol& s) {
  if (!s.version.empty()) return s.version;
  size_t at = s.name.find('@');
  if (at == std::string_view::npos) return {};
  std::string_view v = s.name.substr(at + 1);
  if (!v.empty() && v.front() == '@') v.remove_prefix(1);
  return v;
}

bool is_probeable_function(const Symbol& s) {
  return s.defined && s.value != 0 && (s.type == STT_FUNC || s.type == STT_GNU_IFUNC);
}

bool matches(const Query& q, const Symbol& s) {
  std::string_view base = strip_version(s.name);
  if (q.glob) {
    if (is_compiler_fragment(base) || !glob_match(q.name, base)) return false;
  } else if (base != q.name) {
    return false;
  }
  return q.version.empty() || version_of(s) == q.version;
}

void add_name(SymbolHit& hit, std::string_view name) {
  for (const std::string& n : hit.names) {
    if (n == name) return;
  }
  hit.names.emplace_back(name);
}

}  // namespace

bool is_glob(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

bool is_compiler_fragment(std::string_view name) {
  static constexpr std::string_view kinds[] = {"cold",       "part",  "isra", "constprop",  "lto_priv",
                                               "localalias", "clone", "llvm", "specialized"};
  for (size_t dot = name.find('.'); dot != std::string_view::npos; dot = name.find('.', dot + 1)) {
    std::string_view rest = name.substr(dot + 1);
    for (std::string_view kind : kinds) {
      if (rest.substr(0, kind.size()) == kind &&
          (rest.size() == kind.size() || rest[kind.size()] == '.' || rest[kind.size()] == '_' ||
           (rest[kind.size()] >= '0' && rest[kind.size()] <= '9'))) {
        return true;
      }
    }
  }
  return false;
}

bool glob_match(std::string_view pattern, std::string_view name) {
  size_t p = 0, n = 0;
  size_t star_p = std::string_view::npos, star_n = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star_p = p++;
      star_n = n;
      continue;
    }
    if (p < pattern.size() && pattern[p] == '[') {
      size_t q = p + 1;
      bool negate = q < pattern.size() && (pattern[q] == '!' || pattern[q] == '^');
      if (negate) ++q;
      bool found = false;
      size_t first = q;
      while (q < pattern.size() && (pattern[q] != ']' || q == first)) {
        if (q + 2 < pattern.size() && pattern[q + 1] == '-' && pattern[q + 2] != ']') {
          if (name[n] >= pattern[q] && name[n] <= pattern[q + 2]) found = true;
          q += 3;
        } else {
          if (name[n] == pattern[q]) found = true;
          ++q;
        }
      }
      if (q < pattern.size() && found != negate) {
        p = q + 1;
        ++n;
        continue;
      }
    } else if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
      continue;
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p + 1;
    n = ++star_n;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<SymbolHit> resolve(const ElfFile& file, std::string_view name_or_glob) {
  Query q = parse_query(name_or_glob);
  std::map<uint64_t, SymbolHit> by_address;
  for (const Symbol& s : file.symbols()) {
    if (!is_probeable_function(s) || !matches(q, s)) continue;
    SymbolHit& hit = by_address[s.value];
    hit.address = s.value;
    hit.size = std::max(hit.size, s.size);
    hit.ifunc = hit.ifunc || s.type == STT_GNU_IFUNC;
    add_name(hit, strip_version(s.name));
  }
  if (by_address.empty()) return {};
  // Aliases at the same address (ncclAllReduce / pncclAllReduce) join the hit's names.
  for (const Symbol& s : file.symbols()) {
    if (!is_probeable_function(s)) continue;
    auto it = by_address.find(s.value);
    if (it != by_address.end()) add_name(it->second, strip_version(s.name));
  }

  std::vector<SymbolHit> hits;
  hits.reserve(by_address.size());
  for (auto& [address, hit] : by_address) {
    std::optional<uint64_t> offset = file.vaddr_to_offset(address);
    if (!offset) continue;  // not backed by the file: nothing to probe
    hit.file_offset = *offset;
    if (file.machine() == EM_X86_64) {
      uint8_t code[16];
      size_t n = file.read_bytes(*offset, code);
      EntryClass entry = classify_x86_64_entry(std::span<const uint8_t>(code, n));
      hit.first = entry.first;
      hit.probe_offset_delta = entry.probe_offset_delta;
    }
    hits.push_back(std::move(hit));
  }
  return hits;
}

}  // namespace seam::runtime::elf
