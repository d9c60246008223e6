#include "runtime/elf/soname.hpp"

#include <gelf.h>
#include <libelf.h>

namespace seam::runtime::elf {

std::string read_soname(int fd) {
  if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE) return "";
  ::Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!elf) return "";
  std::string soname;
  for (Elf_Scn* scn = nullptr;
       elf_kind(elf) == ELF_K_ELF && soname.empty() && (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_DYNAMIC || shdr.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    for (size_t i = 0; data && i < shdr.sh_size / shdr.sh_entsize; ++i) {
      GElf_Dyn dyn;
      if (!gelf_getdyn(data, static_cast<int>(i), &dyn)) break;
      if (dyn.d_tag == DT_NULL) break;
      if (dyn.d_tag != DT_SONAME) continue;
      if (const char* name = elf_strptr(elf, shdr.sh_link, dyn.d_un.d_val)) soname = name;
      break;
    }
  }
  elf_end(elf);
  return soname;
}

}  // namespace seam::runtime::elf
