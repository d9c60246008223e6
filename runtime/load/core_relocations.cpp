#include "runtime/load/core_relocations.hpp"

#include <elf.h>

#include <cstring>
#include <string_view>

namespace seam::runtime {
namespace {

template <class T>
bool read_at(std::span<const uint8_t> bytes, uint64_t offset, T* out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(out, bytes.data() + offset, sizeof(T));
  return true;
}

// struct btf_ext_header (libbpf's btf.h): magic, version, flags, hdr_len, then the func_info and
// line_info offsets and lengths, then (hdr_len >= 32) core_relo_off and core_relo_len.
constexpr uint64_t kCoreReloLenAt = 28;
constexpr uint32_t kHeaderWithCoreRelo = 32;

}  // namespace

bool has_core_relocations(std::span<const uint8_t> object) {
  Elf64_Ehdr eh{};
  if (!read_at(object, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr))
    return false;
  Elf64_Shdr names{};
  if (!read_at(object, eh.e_shoff + uint64_t{eh.e_shstrndx} * sizeof(Elf64_Shdr), &names)) return false;
  for (uint64_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh{};
    if (!read_at(object, eh.e_shoff + i * sizeof(Elf64_Shdr), &sh)) return false;
    constexpr std::string_view kBtfExt = ".BTF.ext";
    uint64_t name_at = names.sh_offset + sh.sh_name;
    if (name_at > object.size() || object.size() - name_at < kBtfExt.size() + 1 ||
        std::memcmp(object.data() + name_at, kBtfExt.data(), kBtfExt.size() + 1) != 0)
      continue;
    uint32_t header_len = 0, core_relo_len = 0;
    if (!read_at(object, sh.sh_offset + 4, &header_len) || header_len < kHeaderWithCoreRelo) return false;
    return read_at(object, sh.sh_offset + kCoreReloLenAt, &core_relo_len) && core_relo_len > 0;
  }
  return false;
}

std::mutex& kernel_btf_load_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace seam::runtime
