#include "compiler/build/btf_types.hpp"

#include <bpf/btf.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace seam::build {

int64_t btf_type_extra_bytes(uint32_t kind, uint32_t vlen) {
  switch (kind) {
    case BTF_KIND_INT:
    case BTF_KIND_VAR:
    case BTF_KIND_DECL_TAG:
      return 4;
    case BTF_KIND_PTR:
    case BTF_KIND_FWD:
    case BTF_KIND_TYPEDEF:
    case BTF_KIND_VOLATILE:
    case BTF_KIND_CONST:
    case BTF_KIND_RESTRICT:
    case BTF_KIND_FUNC:
    case BTF_KIND_FLOAT:
    case BTF_KIND_TYPE_TAG:
      return 0;
    case BTF_KIND_ARRAY:
      return sizeof(struct btf_array);
    case BTF_KIND_STRUCT:
    case BTF_KIND_UNION:
      return int64_t{vlen} * sizeof(struct btf_member);
    case BTF_KIND_ENUM:
      return int64_t{vlen} * sizeof(struct btf_enum);
    case BTF_KIND_FUNC_PROTO:
      return int64_t{vlen} * sizeof(struct btf_param);
    case BTF_KIND_DATASEC:
      return int64_t{vlen} * sizeof(struct btf_var_secinfo);
    case BTF_KIND_ENUM64:
      return int64_t{vlen} * sizeof(struct btf_enum64);
    default:
      return -1;
  }
}

std::string raw_btf(std::string_view types, std::string_view strings) {
  btf_header h{};
  h.magic = BTF_MAGIC;
  h.version = BTF_VERSION;
  h.hdr_len = sizeof h;
  h.type_off = 0;
  h.type_len = static_cast<uint32_t>(types.size());
  h.str_off = h.type_len;
  h.str_len = static_cast<uint32_t>(strings.size());
  std::string out(reinterpret_cast<const char*>(&h), sizeof h);
  out.append(types);
  out.append(strings);
  return out;
}

uint32_t LibbpfBtfTypes::count() const {
  return btf__type_cnt(b_);
}

const btf_type* LibbpfBtfTypes::type(uint32_t id) const {
  return btf__type_by_id(b_, id);
}

const char* LibbpfBtfTypes::name(uint32_t offset) const {
  return btf__name_by_offset(b_, offset);
}

Result<std::unique_ptr<MappedBtfTypes>> MappedBtfTypes::map_file(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return Error{path + ": " + std::strerror(err), code_of_errno(err)};
  }
  struct stat st {};
  void* map = fstat(fd, &st) == 0 && st.st_size > 0
                  ? mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
  int err = errno;
  close(fd);
  if (map == MAP_FAILED)  // kernels before 6.16 cannot map it
    return Error{path + ": cannot be mapped: " + std::strerror(err), ErrorCode::Unsupported};
  std::unique_ptr<MappedBtfTypes> types(new MappedBtfTypes());
  types->map_ = map;
  types->map_size_ = static_cast<size_t>(st.st_size);
  if (Result<void> indexed = types->index({static_cast<const char*>(map), types->map_size_}); !indexed)
    return Error{path + ": " + indexed.error(), indexed.code()};
  return types;
}

Result<std::unique_ptr<MappedBtfTypes>> MappedBtfTypes::from_bytes(std::string bytes) {
  std::unique_ptr<MappedBtfTypes> types(new MappedBtfTypes());
  types->bytes_ = std::move(bytes);
  if (Result<void> indexed = types->index(types->bytes_); !indexed) return indexed.failure();
  return types;
}

MappedBtfTypes::~MappedBtfTypes() {
  if (map_) munmap(map_, map_size_);
}

Result<void> MappedBtfTypes::index(std::string_view raw) {
  btf_header h{};
  if (raw.size() < sizeof h) return Error{"too short for a BTF header", ErrorCode::InvalidInput};
  std::memcpy(&h, raw.data(), sizeof h);
  if (h.magic != BTF_MAGIC || h.hdr_len < sizeof h ||
      uint64_t{h.hdr_len} + h.type_off + h.type_len > raw.size() ||
      uint64_t{h.hdr_len} + h.str_off + h.str_len > raw.size() || h.str_len == 0)
    return Error{"not BTF of this machine's byte order", ErrorCode::InvalidInput};
  types_ = raw.substr(h.hdr_len + h.type_off, h.type_len);
  strings_ = raw.substr(h.hdr_len + h.str_off, h.str_len);
  if (strings_.back() != '\0') return Error{"its strings do not end", ErrorCode::InvalidInput};
  // Type records are 4-byte aligned within the section, which starts 4-byte aligned.
  if (reinterpret_cast<uintptr_t>(types_.data()) % 4 != 0)
    return Error{"its types are not aligned", ErrorCode::InvalidInput};
  starts_.clear();
  starts_.reserve(types_.size() / 24 + 1);
  starts_.push_back(0);  // void
  for (size_t at = 0; at < types_.size();) {
    if (types_.size() - at < sizeof(btf_type))
      return Error{"a type runs past its section", ErrorCode::InvalidInput};
    const auto* t = reinterpret_cast<const btf_type*>(types_.data() + at);
    const int64_t extra = btf_type_extra_bytes(BTF_INFO_KIND(t->info), BTF_INFO_VLEN(t->info));
    if (extra < 0)
      return Error{"type " + std::to_string(starts_.size()) + " is of a kind this build does not know (" +
                       std::to_string(BTF_INFO_KIND(t->info)) + ")",
                   ErrorCode::Unsupported};
    starts_.push_back(static_cast<uint32_t>(at));
    at += sizeof(btf_type) + static_cast<size_t>(extra);
    if (at > types_.size()) return Error{"a type runs past its section", ErrorCode::InvalidInput};
  }
  return {};
}

const btf_type* MappedBtfTypes::type(uint32_t id) const {
  if (id == 0 || id >= starts_.size()) return nullptr;
  return reinterpret_cast<const btf_type*>(types_.data() + starts_[id]);
}

const char* MappedBtfTypes::name(uint32_t offset) const {
  return offset < strings_.size() ? strings_.data() + offset : nullptr;
}

}  // namespace seam::build
