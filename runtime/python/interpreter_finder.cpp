#include "runtime/python/interpreter_finder.hpp"

#include <optional>
#include <regex>

#include "runtime/elf/elf_file.hpp"
#include "runtime/elf/proc_maps.hpp"
#include "runtime/python/free_threaded.hpp"

namespace seam::runtime::python {

namespace {

struct RuntimeSymbol {
  uint64_t runtime_vaddr = 0;
  std::optional<uint64_t> py_version;  // PY_VERSION_HEX, from the file
  std::string gil_disabled_marker;     // a symbol only free-threaded builds define, if any
};

std::optional<RuntimeSymbol> runtime_symbol(const elf::ElfFile& file) {
  RuntimeSymbol out;
  bool found = false;
  for (const elf::Symbol& s : file.symbols()) {
    if (!s.defined) continue;
    std::string_view name = elf::strip_version(s.name);
    if (free_threaded_symbol(name)) out.gil_disabled_marker = std::string(name);
    if (name == "_PyRuntime") {
      out.runtime_vaddr = s.value;
      found = true;
    } else if (name == "Py_Version" && s.size == 8) {
      if (std::optional<uint64_t> off = file.vaddr_to_offset(s.value)) {
        uint64_t v = 0;
        if (file.read_bytes(*off, {reinterpret_cast<uint8_t*>(&v), sizeof v}) == sizeof v) out.py_version = v;
      }
    }
  }
  if (!found) return std::nullopt;
  return out;
}

// Where `vaddr` of the file with inode `ino` is in the process: the file's load bias plus
// `vaddr` (also for .bss past the file's end). The bias is where the first segment's page is
// mapped, less that page's vaddr, taken from a mapping whose image also maps the page of the
// segment that holds `vaddr` where the bias says: not through that segment's file page alone
// (a small file maps it twice, read-only for the segment before it and again for the RW one),
// nor through a plain mmap of the whole file (which also maps its first page).
std::optional<uint64_t> process_address(pid_t pid, uint64_t ino, const elf::ElfFile& file, uint64_t vaddr) {
  const elf::LoadSegment *first = nullptr, *holder = nullptr;
  for (const elf::LoadSegment& s : file.segments()) {
    if (!first || s.vaddr < first->vaddr) first = &s;
    if (vaddr >= s.vaddr && vaddr < s.vaddr + s.memsz) holder = &s;
  }
  if (!first || !holder) return std::nullopt;
  constexpr uint64_t kPage = 4096;
  const uint64_t page = ~(kPage - 1);
  std::string text;
  if (!elf::read_whole_file(elf::proc_path(pid, "maps").c_str(), text)) return std::nullopt;
  struct Mapping {
    uint64_t start, end, offset;
  };
  std::vector<Mapping> mappings;
  elf::for_each_mapping(text, [&](const elf::MapsEntry& m) {
    if (m.inode == ino) mappings.push_back({m.start, m.end, m.offset});
  });
  auto maps_file_page = [&](uint64_t address, uint64_t file_page) {
    for (const Mapping& m : mappings)
      if (address >= m.start && address < m.end && m.offset + (address - m.start) == file_page) return true;
    return false;
  };
  for (const Mapping& m : mappings) {
    if (m.offset != (first->offset & page)) continue;
    uint64_t bias = m.start - (first->vaddr & page);
    if (maps_file_page(bias + (holder->vaddr & page), holder->offset & page)) return bias + vaddr;
  }
  return std::nullopt;
}

}  // namespace

int minor_from_name(const std::string& path) {
  static const std::regex kName(R"((?:^|/)(?:lib)?python3\.(\d+)[^/]*$)");
  std::smatch m;
  if (!std::regex_search(path, m, kName)) return 0;
  return std::stoi(m[1].str());
}

elf::Result<Interpreter> find_interpreter(pid_t pid, const std::vector<discover::LibraryFile>& files) {
  std::string tried;
  for (const discover::LibraryFile& f : files) {
    elf::Result<elf::ElfFile> file = elf::ElfFile::open(f.path_for_attach);
    if (!file) continue;
    std::optional<RuntimeSymbol> sym = runtime_symbol(*file);
    if (!sym) {
      tried += (tried.empty() ? "" : ", ") + f.display_path;
      continue;
    }
    Interpreter in;
    in.path = f.display_path;
    in.free_threaded = free_threaded_sign(f.display_path, sym->gil_disabled_marker);
    if (sym->py_version) {
      in.major = static_cast<int>((*sym->py_version >> 24) & 0xff);
      in.minor = static_cast<int>((*sym->py_version >> 16) & 0xff);
    } else if (int minor = minor_from_name(f.display_path)) {
      in.major = 3;
      in.minor = minor;
    }
    std::optional<uint64_t> at = process_address(pid, f.ino, *file, sym->runtime_vaddr);
    if (!at) return elf::Error{f.display_path + ": _PyRuntime is not in the process's mappings"};
    in.runtime = *at;
    return in;
  }
  return elf::Error{tried.empty() ? "no interpreter file could be read"
                                  : "no _PyRuntime symbol in " + tried + " (not CPython 3.8 or later?)"};
}

}  // namespace seam::runtime::python
