#pragma once
// One ELF image opened read-only and mapped: its symbols (.symtab and .dynsym, with symbol
// versions), its GNU build-id and its PT_LOAD segments. Symbol names are views into the mapping,
// so an ElfFile must outlive the views it hands out; it is move-only.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/elf/result.hpp"

struct Elf;  // libelf

namespace seam::runtime::elf {

struct LoadSegment {
  uint64_t vaddr = 0;
  uint64_t memsz = 0;
  uint64_t offset = 0;  // in the file
  uint64_t filesz = 0;
  uint32_t flags = 0;  // PF_R | PF_W | PF_X
};

struct Symbol {
  std::string_view name;        // as stored; .symtab names may carry a literal "@VER" suffix
  std::string_view version;     // .dynsym: from .gnu.version_d; empty when unversioned
  bool version_hidden = false;  // "name@VER" (not the default) rather than "name@@VER"
  uint64_t value = 0;
  uint64_t size = 0;
  uint8_t type = 0;      // STT_*
  uint8_t bind = 0;      // STB_*
  bool defined = false;  // st_shndx != SHN_UNDEF
  bool dynamic = false;  // from .dynsym
};

class ElfFile {
 public:
  static Result<ElfFile> open(const std::string& path);
  // Takes ownership of `fd` (closed on failure too); `path` only names the file in messages.
  static Result<ElfFile> open_fd(int fd, std::string path);

  ElfFile(ElfFile&& other) noexcept;
  ElfFile& operator=(ElfFile&& other) noexcept;
  ElfFile(const ElfFile&) = delete;
  ElfFile& operator=(const ElfFile&) = delete;
  ~ElfFile();

  const std::string& path() const { return path_; }
  uint16_t machine() const { return machine_; }              // EM_X86_64, ...
  const std::string& build_id() const { return build_id_; }  // lowercase hex; "" when none
  const std::vector<LoadSegment>& segments() const { return segments_; }
  const std::vector<Symbol>& symbols() const { return symbols_; }  // .symtab entries, then .dynsym

  // Virtual address -> file offset through the PT_LOAD that holds it in the file (the offset
  // the kernel's uprobe API wants), and back. nullopt when no segment covers it.
  std::optional<uint64_t> vaddr_to_offset(uint64_t vaddr) const;
  std::optional<uint64_t> offset_to_vaddr(uint64_t offset) const;

  // Reads file bytes at `offset` into `out` with pread (fewer at the end of the file, 0 after
  // drop_descriptor()); returns how many. Code bytes must come from here, not from the
  // mapping: the kernel writes uprobe breakpoints (int3) into every executable-capable mapping
  // of a probed file, ours included, but never into the file.
  size_t read_bytes(uint64_t offset, std::span<uint8_t> out) const;

  // Closes the file descriptor; symbols, segments and build-id stay (the mapping outlives it).
  // For caches that keep many ElfFiles for their symbols.
  void drop_descriptor();

 private:
  ElfFile() = default;
  Result<bool> load();
  void release();

  std::string path_;
  int fd_ = -1;
  ::Elf* elf_ = nullptr;
  uint16_t machine_ = 0;
  std::string build_id_;
  std::vector<LoadSegment> segments_;
  std::vector<Symbol> symbols_;
};

// The GNU build-id of the ELF image open on `fd` (lowercase hex; "" when it has none or is not
// ELF), without reading its symbols. The descriptor stays open and owned by the caller.
std::string read_build_id(int fd);

// "name@@VER" / "name@VER" -> "name": the part of a symbol name before any version suffix.
std::string_view strip_version(std::string_view name);

}  // namespace seam::runtime::elf
