#include "runtime/symbolize/module_symbols.hpp"

#include <elf.h>

#include <algorithm>

namespace seam::runtime::symbolize {
namespace {

// Among names at one address, the one to print: a global over a weak alias over a local, then
// a public name over an underscored one (printf over _IO_printf), then the shorter.
struct Rank {
  int bind;
  bool underscored;
  size_t length;
  bool operator<(const Rank& o) const {
    if (bind != o.bind) return bind < o.bind;
    if (underscored != o.underscored) return !underscored;
    return length < o.length;
  }
};

Rank rank(const elf::Symbol& s, std::string_view name) {
  return {s.bind == STB_GLOBAL ? 0
          : s.bind == STB_WEAK ? 1
                               : 2,
          !name.empty() && name.front() == '_', name.size()};
}

}  // namespace

ModuleSymbols::ModuleSymbols(elf::ElfFile file) : file_(std::move(file)) {
  file_.drop_descriptor();  // cached for as long as seam runs: keep the mapping, not an fd
  struct Candidate {
    Entry entry;
    Rank rank;
  };
  std::vector<Candidate> all;
  all.reserve(file_.symbols().size());
  for (const elf::Symbol& s : file_.symbols()) {
    if (!s.defined || s.value == 0 || (s.type != STT_FUNC && s.type != STT_GNU_IFUNC)) continue;
    std::string_view name = elf::strip_version(s.name);
    all.push_back({{s.value, s.size, name}, rank(s, name)});
  }
  std::sort(all.begin(), all.end(), [](const Candidate& a, const Candidate& b) {
    return a.entry.start != b.entry.start ? a.entry.start < b.entry.start : a.rank < b.rank;
  });
  entries_.reserve(all.size());
  for (const Candidate& c : all) {
    if (!entries_.empty() && entries_.back().start == c.entry.start) {
      entries_.back().size = std::max(entries_.back().size, c.entry.size);
      continue;
    }
    entries_.push_back(c.entry);
  }
}

std::optional<SymbolAt> ModuleSymbols::lookup(uint64_t vaddr) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), vaddr,
                             [](uint64_t a, const Entry& e) { return a < e.start; });
  if (it == entries_.begin()) return std::nullopt;
  const Entry& e = *(it - 1);
  uint64_t offset = vaddr - e.start;
  // Size 0 (hand-written assembly): only the exact start is known to be this symbol.
  if (offset >= e.size && !(e.size == 0 && offset == 0)) return std::nullopt;
  return SymbolAt{e.name, offset};
}

}  // namespace seam::runtime::symbolize
