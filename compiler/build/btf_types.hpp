#pragma once
// The kernel's BTF types as the types header reads them (btf_type_lookup.hpp,
// tracepoint_class.hpp, btf_subset.hpp): a type by id and a name by offset. Two sources:
// - LibbpfBtfTypes, over libbpf's parse (btf__load_vmlinux_btf: read, copy and index the whole
//   file, 8.5 ms for a 6.18 kernel's 5.5 MB and 126,000 types here);
// - MappedBtfTypes, over /sys/kernel/btf/vmlinux mapped read-only (kernels since 6.16 allow it)
//   and one walk that notes where each type starts (0.7 ms here). Nothing is copied.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/diag/result.hpp"

struct btf;
struct btf_type;

namespace seam::build {

class BtfTypes {
 public:
  virtual ~BtfTypes() = default;
  // Type ids run from 1 to count() - 1; id 0 is void.
  virtual uint32_t count() const = 0;
  // The type of `id` (1 <= id < count()): its btf_type and the kind's data after it.
  virtual const btf_type* type(uint32_t id) const = 0;
  // The string at `offset` of the string section ("" for 0), or null past its end.
  virtual const char* name(uint32_t offset) const = 0;
};

class LibbpfBtfTypes : public BtfTypes {
 public:
  explicit LibbpfBtfTypes(const btf* b) : b_(b) {}
  uint32_t count() const override;
  const btf_type* type(uint32_t id) const override;
  const char* name(uint32_t offset) const override;

 private:
  const btf* b_;
};

class MappedBtfTypes : public BtfTypes {
 public:
  // The file at `path` mapped (ErrorCode::Unsupported where the kernel cannot map it: read it
  // with libbpf instead), or why it is not BTF.
  static Result<std::unique_ptr<MappedBtfTypes>> map_file(const std::string& path);
  // Raw BTF bytes held in memory (tests, and files that cannot be mapped).
  static Result<std::unique_ptr<MappedBtfTypes>> from_bytes(std::string bytes);
  ~MappedBtfTypes() override;
  MappedBtfTypes(const MappedBtfTypes&) = delete;
  MappedBtfTypes& operator=(const MappedBtfTypes&) = delete;

  uint32_t count() const override { return static_cast<uint32_t>(starts_.size()); }
  const btf_type* type(uint32_t id) const override;
  const char* name(uint32_t offset) const override;

 private:
  MappedBtfTypes() = default;
  // Checks the header and notes where each type starts; an error for BTF this walk cannot read.
  Result<void> index(std::string_view raw);

  void* map_ = nullptr;  // the mapping, when mapped
  size_t map_size_ = 0;
  std::string bytes_;  // the bytes, when held
  std::string_view types_, strings_;
  std::vector<uint32_t> starts_;  // offset in types_ of each id's btf_type; [0] for void
};

// Raw BTF of this machine's byte order: a header, then `types` (btf_type records and their data),
// then `strings` (starting with the empty string).
std::string raw_btf(std::string_view types, std::string_view strings);

// The bytes of the data that follows a btf_type of `kind` with `vlen` entries, or -1 for a kind
// this walk does not know.
int64_t btf_type_extra_bytes(uint32_t kind, uint32_t vlen);

}  // namespace seam::build
