#include "compiler/build/btf_subset.hpp"

#include <bpf/btf.h>
#include <linux/btf.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace seam::build {

void FreeBtf::operator()(btf* b) const {
  btf__free(b);
}

namespace {

bool is_composite(uint32_t kind) {
  return kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION;
}

// Which types dumping the roots reaches, and how: `full` when reached with no pointer on the way
// (or as an anonymous struct, which is defined where it is used), `through_pointer` otherwise.
struct Reach {
  std::vector<bool> full, through_pointer;
};

Result<Reach> reach_from(const BtfTypes& from, const std::vector<int>& roots) {
  const uint32_t count = from.count();
  Reach r{std::vector<bool>(count), std::vector<bool>(count)};
  // Depth first, with a stack of its own: how deep kernel types nest is not ours to bound.
  std::vector<std::pair<uint32_t, bool>> todo;  // (id, reached through a pointer)
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) {
    if (*it <= 0 || static_cast<uint32_t>(*it) >= count)
      return Error{"type id " + std::to_string(*it) + " is not in this BTF", ErrorCode::InvalidInput};
    todo.emplace_back(static_cast<uint32_t>(*it), false);
  }
  while (!todo.empty()) {
    auto [id, through_pointer] = todo.back();
    todo.pop_back();
    if (id == 0) continue;  // void
    if (id >= count) return Error{"a type refers to id " + std::to_string(id) + ", past the BTF's types"};
    const btf_type* t = from.type(id);
    const uint32_t kind = btf_kind(t);
    // A full reach needs all that a pointer reach needs, and more.
    if (r.full[id] || (through_pointer && r.through_pointer[id])) continue;
    if (through_pointer && (!is_composite(kind) || t->name_off != 0)) {
      r.through_pointer[id] = true;
      if (is_composite(kind)) continue;  // named only
    } else {
      r.full[id] = true;
    }
    switch (kind) {
      case BTF_KIND_INT:
      case BTF_KIND_FLOAT:
      case BTF_KIND_ENUM:
      case BTF_KIND_ENUM64:
      case BTF_KIND_FWD:
        break;
      case BTF_KIND_PTR:
        todo.emplace_back(t->type, true);
        break;
      case BTF_KIND_ARRAY:
        todo.emplace_back(btf_array(t)->type, false);
        todo.emplace_back(btf_array(t)->index_type, false);
        break;
      case BTF_KIND_STRUCT:
      case BTF_KIND_UNION: {
        const btf_member* m = btf_members(t);
        for (uint32_t i = btf_vlen(t); i-- > 0;) todo.emplace_back(m[i].type, false);
        break;
      }
      case BTF_KIND_TYPEDEF:
      case BTF_KIND_VOLATILE:
      case BTF_KIND_CONST:
      case BTF_KIND_RESTRICT:
      case BTF_KIND_TYPE_TAG:
      case BTF_KIND_FUNC:
      case BTF_KIND_VAR:
        todo.emplace_back(t->type, through_pointer);
        break;
      case BTF_KIND_FUNC_PROTO: {
        const btf_param* p = btf_params(t);
        for (uint32_t i = btf_vlen(t); i-- > 0;) todo.emplace_back(p[i].type, through_pointer);
        todo.emplace_back(t->type, through_pointer);
        break;
      }
      default:
        return Error{"type " + std::to_string(id) + " is of a kind a C header cannot hold (" +
                         std::to_string(kind) + ")",
                     ErrorCode::Unsupported};
    }
  }
  return r;
}

// The subset's raw BTF: header, types, strings (include/uapi/linux/btf.h).
class Writer {
 public:
  Writer(const BtfTypes& from, std::vector<uint32_t> new_ids) : from_(from), new_ids_(std::move(new_ids)) {}

  Result<void> add(uint32_t id, bool named_only) {
    const btf_type* t = from_.type(id);
    btf_type copy = *t;
    Result<uint32_t> name = name_of(t->name_off);
    if (!name) return name.failure();
    copy.name_off = *name;
    const uint32_t kind = btf_kind(t);
    if (named_only)
      copy.info = kind << 24;  // no members, no bitfield flag
    else if (kind != BTF_KIND_INT && kind != BTF_KIND_FLOAT && kind != BTF_KIND_ENUM &&
             kind != BTF_KIND_ENUM64 && kind != BTF_KIND_FWD && !is_composite(kind) && kind != BTF_KIND_ARRAY)
      copy.type = new_ids_[t->type];  // the kinds whose size_or_type is a type
    put(copy);
    if (named_only) return {};
    switch (kind) {
      case BTF_KIND_INT:
      case BTF_KIND_VAR:
        put_bytes(t + 1, 4);
        break;
      case BTF_KIND_ARRAY: {
        struct btf_array a = *btf_array(t);
        a.type = new_ids_[a.type];
        a.index_type = new_ids_[a.index_type];
        put(a);
        break;
      }
      case BTF_KIND_STRUCT:
      case BTF_KIND_UNION:
        for (uint32_t i = 0; i < btf_vlen(t); ++i) {
          struct btf_member m = btf_members(t)[i];
          if (!rename(m.name_off)) return bad_name(id);
          m.type = new_ids_[m.type];
          put(m);
        }
        break;
      case BTF_KIND_ENUM:
        for (uint32_t i = 0; i < btf_vlen(t); ++i) {
          struct btf_enum e = btf_enum(t)[i];
          if (!rename(e.name_off)) return bad_name(id);
          put(e);
        }
        break;
      case BTF_KIND_ENUM64:
        for (uint32_t i = 0; i < btf_vlen(t); ++i) {
          struct btf_enum64 e = btf_enum64(t)[i];
          if (!rename(e.name_off)) return bad_name(id);
          put(e);
        }
        break;
      case BTF_KIND_FUNC_PROTO:
        for (uint32_t i = 0; i < btf_vlen(t); ++i) {
          struct btf_param p = btf_params(t)[i];
          if (!rename(p.name_off)) return bad_name(id);
          p.type = new_ids_[p.type];
          put(p);
        }
        break;
      default:
        break;
    }
    return {};
  }

  std::string bytes() const { return raw_btf(types_, strings_); }

 private:
  template <typename T>
  void put(const T& value) {
    put_bytes(&value, sizeof value);
  }
  void put_bytes(const void* p, size_t n) { types_.append(static_cast<const char*>(p), n); }

  Result<uint32_t> name_of(uint32_t offset) {
    if (offset == 0) return 0u;
    const char* s = from_.name(offset);
    if (!s) return Error{"a name offset past the strings", ErrorCode::InvalidInput};
    auto [it, added] = offsets_.try_emplace(std::string_view(s), static_cast<uint32_t>(strings_.size()));
    if (added) strings_.append(s, std::strlen(s) + 1);
    return it->second;
  }
  bool rename(uint32_t& offset) {
    Result<uint32_t> renamed = name_of(offset);
    if (renamed) offset = *renamed;
    return static_cast<bool>(renamed);
  }
  static Error bad_name(uint32_t id) {
    return Error{"type " + std::to_string(id) + " names a string past the strings", ErrorCode::InvalidInput};
  }

  const BtfTypes& from_;
  std::vector<uint32_t> new_ids_;  // by id in `from`: the subset's id, 0 for void and left out
  std::string types_, strings_ = std::string(1, '\0');
  std::unordered_map<std::string_view, uint32_t> offsets_;  // views of `from`'s strings
};

}  // namespace

Result<BtfSubset> btf_subset(const BtfTypes& from, const std::vector<int>& roots) {
  Result<Reach> reached = reach_from(from, roots);
  if (!reached) return reached.failure();
  const Reach& r = *reached;
  const uint32_t count = from.count();
  std::vector<uint32_t> new_ids(count, 0);
  std::vector<uint32_t> kept;
  for (uint32_t id = 1; id < count; ++id)
    if (r.full[id] || r.through_pointer[id]) {
      kept.push_back(id);
      new_ids[id] = static_cast<uint32_t>(kept.size());
    }
  BtfSubset subset;
  for (int root : roots) subset.roots.push_back(static_cast<int>(new_ids[static_cast<uint32_t>(root)]));
  Writer writer(from, std::move(new_ids));
  for (uint32_t id : kept) {
    const btf_type* t = from.type(id);
    const bool named_only = is_composite(btf_kind(t)) && !r.full[id];
    subset.named_only += named_only;
    if (Result<void> added = writer.add(id, named_only); !added) return added.failure();
  }
  subset.kept = static_cast<int>(kept.size());
  const std::string raw = writer.bytes();
  subset.types.reset(btf__new(raw.data(), static_cast<uint32_t>(raw.size())));
  if (!subset.types) {
    int err = errno;
    return Error{std::string("libbpf refused the subset of the kernel's BTF: ") + std::strerror(err),
                 code_of_errno(err)};
  }
  return subset;
}

}  // namespace seam::build
