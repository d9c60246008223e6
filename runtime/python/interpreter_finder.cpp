#include "runtime/python/interpreter_finder.hpp"

#include <optional>
#include <regex>

#include "runtime/elf/elf_file.hpp"
#include "runtime/elf/proc_maps.hpp"

namespace seam::runtime::python {

namespace {

struct RuntimeSymbol {
  uint64_t runtime_vaddr = 0;
  std::optional<uint64_t> py_version;  // PY_VERSION_HEX, from the file
};

std::optional<RuntimeSymbol> runtime_symbol(const elf::ElfFile& file) {
  RuntimeSymbol out;
  bool found = false;
  for (const elf::Symbol& s : file.symbols()) {
    if (!s.defined) continue;
    std::string_view name = elf::strip_version(s.name);
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

// Where `vaddr` of the file with inode `ino` is in the process: through the file's mapping of
// the page-aligned start of the segment that holds it (also for .bss past the file's end).
std::optional<uint64_t> process_address(pid_t pid, uint64_t ino, const elf::ElfFile& file, uint64_t vaddr) {
  const elf::LoadSegment* seg = nullptr;
  for (const elf::LoadSegment& s : file.segments())
    if (vaddr >= s.vaddr && vaddr < s.vaddr + s.memsz) seg = &s;
  if (!seg) return std::nullopt;
  constexpr uint64_t kPage = 4096;
  uint64_t seg_file_page = seg->offset & ~(kPage - 1), seg_vaddr_page = seg->vaddr & ~(kPage - 1);
  std::string text;
  if (!elf::read_whole_file(elf::proc_path(pid, "maps").c_str(), text)) return std::nullopt;
  std::optional<uint64_t> address;
  elf::for_each_mapping(text, [&](const elf::MapsEntry& m) {
    if (!address && m.inode == ino && m.offset == seg_file_page) address = m.start + (vaddr - seg_vaddr_page);
  });
  return address;
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
