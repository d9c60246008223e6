#pragma once
// One library's function symbols sorted by address, for turning addresses into names. Built
// once per library (the Symbolizer caches it by build-id) from an ElfFile it keeps mapped: the
// names are views into that mapping.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "runtime/elf/elf_file.hpp"

namespace seam::runtime::symbolize {

struct SymbolAt {
  std::string_view name;  // version suffix stripped
  uint64_t offset = 0;    // from the symbol's start
};

class ModuleSymbols {
 public:
  explicit ModuleSymbols(elf::ElfFile file);

  // The function containing this link-time virtual address.
  std::optional<SymbolAt> lookup(uint64_t vaddr) const;
  // A file offset (what /proc/PID/maps describes) -> link-time virtual address.
  std::optional<uint64_t> offset_to_vaddr(uint64_t offset) const { return file_.offset_to_vaddr(offset); }
  const std::string& build_id() const { return file_.build_id(); }
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    uint64_t start = 0;
    uint64_t size = 0;
    std::string_view name;
  };
  elf::ElfFile file_;
  std::vector<Entry> entries_;
};

}  // namespace seam::runtime::symbolize
