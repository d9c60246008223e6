#include "compiler/build/btf_type_lookup.hpp"

#include <bpf/btf.h>
#include <linux/btf.h>

#include <array>
#include <string_view>
#include <unordered_map>

namespace seam::build {
namespace {

// The kinds a name is tried as, in the order a bare name tries them.
constexpr std::array<int, 5> kKinds = {BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_TYPEDEF, BTF_KIND_ENUM,
                                       BTF_KIND_ENUM64};

struct Wanted {
  std::string_view name;  // without its "struct "/"union "/"enum " prefix
  int only_kind = -1;     // set by a prefix
};

Wanted parse(const std::string& name) {
  static constexpr std::array<std::pair<std::string_view, int>, 3> kPrefixes = {
      {{"struct ", BTF_KIND_STRUCT}, {"union ", BTF_KIND_UNION}, {"enum ", BTF_KIND_ENUM}}};
  for (const auto& [prefix, kind] : kPrefixes)
    if (std::string_view(name).starts_with(prefix))
      return {std::string_view(name).substr(prefix.size()), kind};
  return {name, -1};
}

// What one walk found for a wanted name: the first id of each kind, and of an enum declaring it.
struct Found {
  std::array<int, kKinds.size()> by_kind{-1, -1, -1, -1, -1};
  int enum_with = -1;
};

int kind_slot(int kind) {
  for (size_t i = 0; i < kKinds.size(); ++i)
    if (kKinds[i] == kind) return static_cast<int>(i);
  return -1;
}

int resolve(const Wanted& w, const Found& f) {
  if (w.only_kind == BTF_KIND_ENUM) return f.by_kind[3] > 0 ? f.by_kind[3] : f.by_kind[4];
  if (w.only_kind >= 0) return f.by_kind[static_cast<size_t>(kind_slot(w.only_kind))];
  for (int id : f.by_kind)
    if (id > 0) return id;
  const bool capital = !w.name.empty() && w.name[0] >= 'A' && w.name[0] <= 'Z';
  return capital ? f.enum_with : -1;
}

}  // namespace

std::vector<int> find_kernel_types(const BtfTypes& types, const std::vector<std::string>& names) {
  std::vector<Wanted> wanted;
  std::unordered_map<std::string_view, Found> found;
  for (const std::string& name : names) {
    wanted.push_back(parse(name));
    found.try_emplace(wanted.back().name);
  }
  const uint32_t count = types.count();
  for (uint32_t id = 1; id < count; ++id) {
    const btf_type* t = types.type(id);
    const int slot = kind_slot(btf_kind(t));
    if (slot < 0) continue;
    if (t->name_off != 0) {
      const char* name = types.name(t->name_off);
      auto it = name ? found.find(name) : found.end();
      if (it != found.end() && it->second.by_kind[static_cast<size_t>(slot)] < 0)
        it->second.by_kind[static_cast<size_t>(slot)] = static_cast<int>(id);
    }
    if (!btf_is_enum(t)) continue;
    const struct btf_enum* e = btf_enum(t);
    for (unsigned i = 0; i < btf_vlen(t); ++i) {
      const char* name = types.name(e[i].name_off);
      auto it = name ? found.find(name) : found.end();
      if (it != found.end() && it->second.enum_with < 0) it->second.enum_with = static_cast<int>(id);
    }
  }
  std::vector<int> ids;
  ids.reserve(wanted.size());
  for (const Wanted& w : wanted) ids.push_back(resolve(w, found.at(w.name)));
  return ids;
}

}  // namespace seam::build
