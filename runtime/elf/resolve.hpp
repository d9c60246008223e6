#pragma once
// Symbol resolution for uprobes. We resolve ourselves rather than through libbpf because
// libbpf 1.1 cannot match "cudaStreamSynchronize" against the versioned dynamic symbol
// "cudaStreamSynchronize@@libcudart.so.13", and cannot see LOCAL .symtab functions (take_gil).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/elf/elf_file.hpp"
#include "runtime/elf/first_instruction.hpp"

namespace seam::runtime::elf {

struct SymbolHit {
  std::vector<std::string> names;  // every function name at this address, version-stripped, matches first
  uint64_t address = 0;            // st_value
  uint64_t size = 0;
  uint64_t file_offset = 0;         // address translated through PT_LOAD: what the uprobe API wants
  uint64_t probe_offset_delta = 0;  // add to file_offset to place the probe (4 after endbr64)
  FirstInstruction first = FirstInstruction::Unknown;
  // A GNU indirect function: its address is the resolver's, which runs once at load time, so a
  // probe there never sees calls. The runtime reports these as unsupported.
  bool ifunc = false;
};

// Defined functions (STT_FUNC, and STT_GNU_IFUNC flagged as such) with a nonzero address whose
// name matches. A plain name matches a symbol's name with any "@VER"/"@@VER" suffix stripped;
// "name@VER" or "name@@VER" also requires that version. A glob (*, ?, [...]) matches many names
// but never compiler-split fragments (".cold", ".part.N", ".isra.N", ".constprop.N", ...).
// One hit per address (weak aliases share it), sorted by address.
std::vector<SymbolHit> resolve(const ElfFile& file, std::string_view name_or_glob);

bool is_glob(std::string_view pattern);
// True for names like "ncclAllReduce.cold.11" or "foo.part.0": pieces of a function, not entries.
bool is_compiler_fragment(std::string_view name);
// Shell-style match of a whole name: *, ?, [abc], [a-z], [!x].
bool glob_match(std::string_view pattern, std::string_view name);

}  // namespace seam::runtime::elf
