#include "runtime/elf/usdt_notes.hpp"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace seam::runtime::elf {
namespace {

constexpr uint32_t kStapsdtNoteType = 3;

// The descriptor: three addresses (probe, .stapsdt.base, semaphore) of the file's word size,
// then provider, name and argument strings, each NUL-terminated.
bool parse_desc(const char* desc, size_t size, bool wide, UsdtNote& note) {
  size_t word = wide ? 8 : 4;
  if (size < 3 * word) return false;
  auto addr = [&](size_t i) {
    uint64_t v = 0;
    std::memcpy(&v, desc + i * word, word);  // little-endian host and file (x86-64)
    return v;
  };
  note.address = addr(0);
  note.semaphore = addr(2);
  std::string* out[] = {&note.provider, &note.name, &note.args};
  size_t at = 3 * word;
  for (std::string* s : out) {
    const void* end = std::memchr(desc + at, 0, size - at);
    if (!end) return false;
    s->assign(desc + at, static_cast<const char*>(end));
    at = static_cast<size_t>(static_cast<const char*>(end) - desc) + 1;
  }
  return true;
}

}  // namespace

Result<std::vector<UsdtNote>> read_usdt_notes(const std::string& path) {
  if (elf_version(EV_CURRENT) == EV_NONE) return Error{path + ": libelf: " + elf_errmsg(-1)};
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{path + ": " + std::strerror(errno)};
  ::Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!elf || elf_kind(elf) != ELF_K_ELF) {
    if (elf) elf_end(elf);
    ::close(fd);
    return Error{path + ": not an ELF file"};
  }
  bool wide = gelf_getclass(elf) == ELFCLASS64;
  size_t shstrndx = 0;
  std::vector<UsdtNote> notes;
  if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr shdr;
      if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE) continue;
      const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
      if (!name || std::strcmp(name, ".note.stapsdt") != 0) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      if (!data) continue;
      GElf_Nhdr nhdr;
      size_t name_off = 0, desc_off = 0;
      for (size_t off = 0; (off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0;) {
        const char* base = static_cast<const char*>(data->d_buf);
        if (nhdr.n_type != kStapsdtNoteType || nhdr.n_namesz != 8 ||
            std::strcmp(base + name_off, "stapsdt") != 0)
          continue;
        UsdtNote note;
        if (parse_desc(base + desc_off, nhdr.n_descsz, wide, note)) notes.push_back(std::move(note));
      }
    }
  }
  elf_end(elf);
  ::close(fd);
  return notes;
}

}  // namespace seam::runtime::elf
