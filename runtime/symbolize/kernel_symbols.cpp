#include "runtime/symbolize/kernel_symbols.hpp"

#include <algorithm>
#include <charconv>

#include "runtime/elf/proc_maps.hpp"

namespace seam::runtime::symbolize {

KernelSymbols::KernelSymbols(std::string text) : text_(std::move(text)) {
  std::string_view rest = text_;
  entries_.reserve(rest.size() / 40);
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    uint64_t addr = 0;
    auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), addr, 16);
    size_t pos = static_cast<size_t>(ptr - line.data());
    if (ec != std::errc() || addr == 0 || pos + 3 >= line.size() || line[pos] != ' ') continue;
    char type = line[pos + 1];
    if (type != 't' && type != 'T' && type != 'w' && type != 'W') continue;
    std::string_view name = line.substr(pos + 3);
    std::string_view module;
    size_t tab = name.find('\t');
    if (tab != std::string_view::npos) {
      module = name.substr(tab + 1);
      name = name.substr(0, tab);
      if (module.size() >= 2 && module.front() == '[' && module.back() == ']') {
        module = module.substr(1, module.size() - 2);
      }
    }
    entries_.push_back({addr, name, module});
  }
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const Entry& a, const Entry& b) { return a.addr < b.addr; });
}

KernelSymbols KernelSymbols::load(const char* path) {
  std::string text;
  if (!elf::read_whole_file(path, text)) text.clear();
  return KernelSymbols(std::move(text));
}

std::optional<KernelSymbols::Hit> KernelSymbols::lookup(uint64_t addr) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), addr,
                             [](uint64_t a, const Entry& e) { return a < e.addr; });
  if (it == entries_.begin()) return std::nullopt;
  const Entry& e = *(it - 1);
  // kallsyms has no sizes: past the last symbol of the image or of a module we cannot tell
  // what an address is, but inside the range the nearest symbol below is right.
  if (it == entries_.end() && addr - e.addr > (1u << 20)) return std::nullopt;
  return Hit{e.name, e.module, addr - e.addr};
}

}  // namespace seam::runtime::symbolize
