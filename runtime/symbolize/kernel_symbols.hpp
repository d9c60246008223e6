#pragma once
// Kernel addresses -> names through /proc/kallsyms, read once and sorted. Without root the file
// shows zero addresses; then nothing resolves.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seam::runtime::symbolize {

class KernelSymbols {
 public:
  struct Hit {
    std::string_view name;
    std::string_view module;  // "" for the kernel image, else the module's name
    uint64_t offset = 0;
  };

  // Parses kallsyms text ("ffffffff81000000 T _text\n", "... t fn\t[nvidia]\n"); text symbols only.
  explicit KernelSymbols(std::string text);
  static KernelSymbols load(const char* path = "/proc/kallsyms");

  std::optional<Hit> lookup(uint64_t addr) const;
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    uint64_t addr;
    std::string_view name;
    std::string_view module;
  };
  std::string text_;  // owns what the views point at
  std::vector<Entry> entries_;
};

}  // namespace seam::runtime::symbolize
