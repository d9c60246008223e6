#include "runtime/elf/elf_file.hpp"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <unordered_map>

namespace seam::runtime::elf {
namespace {

Error fail(const std::string& path, const std::string& reason) {
  return Error{path + ": " + reason};
}

Error elf_fail(const std::string& path, const char* what) {
  return fail(path, std::string(what) + ": " + elf_errmsg(-1));
}

bool libelf_ready() {
  static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
  return ready;
}

// Version names by index, from SHT_GNU_verdef (index 1, the file's own name, is left out).
std::unordered_map<uint16_t, std::string_view> version_definitions(::Elf* elf, Elf_Scn* verdef_scn) {
  std::unordered_map<uint16_t, std::string_view> names;
  if (!verdef_scn) return names;
  GElf_Shdr shdr;
  Elf_Data* data = elf_getdata(verdef_scn, nullptr);
  if (!data || !gelf_getshdr(verdef_scn, &shdr)) return names;
  int offset = 0;
  for (size_t i = 0; i < shdr.sh_info; ++i) {
    GElf_Verdef def;
    if (!gelf_getverdef(data, offset, &def)) break;
    GElf_Verdaux aux;
    if (!(def.vd_flags & VER_FLG_BASE) &&
        gelf_getverdaux(data, offset + static_cast<int>(def.vd_aux), &aux)) {
      if (const char* name = elf_strptr(elf, shdr.sh_link, aux.vda_name)) names[def.vd_ndx] = name;
    }
    if (def.vd_next == 0) break;
    offset += static_cast<int>(def.vd_next);
  }
  return names;
}

void read_symbols(::Elf* elf, Elf_Scn* scn, bool dynamic, Elf_Scn* versym_scn,
                  const std::unordered_map<uint16_t, std::string_view>& versions, std::vector<Symbol>& out) {
  GElf_Shdr shdr;
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (!data || !gelf_getshdr(scn, &shdr) || shdr.sh_entsize == 0) return;
  Elf_Data* versym = (dynamic && versym_scn) ? elf_getdata(versym_scn, nullptr) : nullptr;
  size_t count = shdr.sh_size / shdr.sh_entsize;
  out.reserve(out.size() + count);
  for (size_t i = 1; i < count; ++i) {  // entry 0 is the null symbol
    GElf_Sym sym;
    if (!gelf_getsym(data, static_cast<int>(i), &sym)) break;
    const char* name = elf_strptr(elf, shdr.sh_link, sym.st_name);
    if (!name || !*name) continue;
    Symbol s;
    s.name = name;
    s.value = sym.st_value;
    s.size = sym.st_size;
    s.type = static_cast<uint8_t>(GELF_ST_TYPE(sym.st_info));
    s.bind = static_cast<uint8_t>(GELF_ST_BIND(sym.st_info));
    s.defined = sym.st_shndx != SHN_UNDEF;
    s.dynamic = dynamic;
    GElf_Versym ver;
    if (versym && gelf_getversym(versym, static_cast<int>(i), &ver)) {
      auto it = versions.find(static_cast<uint16_t>(ver & 0x7fff));
      if (it != versions.end()) {
        s.version = it->second;
        s.version_hidden = (ver & 0x8000) != 0;
      }
    }
    out.push_back(s);
  }
}

std::string hex(const uint8_t* bytes, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s(n * 2, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = digits[bytes[i] >> 4];
    s[2 * i + 1] = digits[bytes[i] & 15];
  }
  return s;
}

}  // namespace

std::string read_build_id(int fd) {
  if (fd < 0 || !libelf_ready()) return "";
  ::Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (!elf) return "";
  std::string id;
  const void* bytes = nullptr;
  ssize_t len = elf_kind(elf) == ELF_K_ELF ? dwelf_elf_gnu_build_id(elf, &bytes) : -1;
  if (len > 0) id = hex(static_cast<const uint8_t*>(bytes), static_cast<size_t>(len));
  elf_end(elf);
  return id;
}

std::string_view strip_version(std::string_view name) {
  size_t at = name.find('@');
  return at == std::string_view::npos ? name : name.substr(0, at);
}

Result<ElfFile> ElfFile::open(const std::string& path) {
  // Paths come from processes (their maps, the loader's names) and may be swapped for a FIFO
  // after discovery looked: never block in open, and read regular files only.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(path, "not a regular file");
  }
  return open_fd(fd, path);
}

Result<ElfFile> ElfFile::open_fd(int fd, std::string path) {
  ElfFile file;
  file.fd_ = fd;
  file.path_ = std::move(path);
  Result<bool> loaded = file.load();
  if (!loaded) return Error{loaded.error()};
  return file;
}

Result<bool> ElfFile::load() {
  if (!libelf_ready()) return fail(path_, "libelf is unusable");
  elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
  if (!elf_) return elf_fail(path_, "cannot read");
  if (elf_kind(elf_) != ELF_K_ELF) return fail(path_, "not an ELF file");
  GElf_Ehdr ehdr;
  if (!gelf_getehdr(elf_, &ehdr)) return elf_fail(path_, "bad ELF header");
  machine_ = ehdr.e_machine;

  size_t phnum = 0;
  if (elf_getphdrnum(elf_, &phnum) != 0) return elf_fail(path_, "bad program headers");
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    if (!gelf_getphdr(elf_, static_cast<int>(i), &phdr) || phdr.p_type != PT_LOAD) continue;
    segments_.push_back({phdr.p_vaddr, phdr.p_memsz, phdr.p_offset, phdr.p_filesz, phdr.p_flags});
  }

  const void* id = nullptr;
  ssize_t id_len = dwelf_elf_gnu_build_id(elf_, &id);
  if (id_len > 0) build_id_ = hex(static_cast<const uint8_t*>(id), static_cast<size_t>(id_len));

  Elf_Scn *symtab = nullptr, *dynsym = nullptr, *versym = nullptr, *verdef = nullptr;
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr)) continue;
    if (shdr.sh_type == SHT_SYMTAB) symtab = scn;
    if (shdr.sh_type == SHT_DYNSYM) dynsym = scn;
    if (shdr.sh_type == SHT_GNU_versym) versym = scn;
    if (shdr.sh_type == SHT_GNU_verdef) verdef = scn;
  }
  auto versions = version_definitions(elf_, verdef);
  if (symtab) read_symbols(elf_, symtab, false, nullptr, versions, symbols_);
  if (dynsym) read_symbols(elf_, dynsym, true, versym, versions, symbols_);
  return true;
}

std::optional<uint64_t> ElfFile::vaddr_to_offset(uint64_t vaddr) const {
  for (const LoadSegment& s : segments_) {
    if (vaddr >= s.vaddr && vaddr < s.vaddr + s.filesz) return vaddr - s.vaddr + s.offset;
  }
  return std::nullopt;
}

std::optional<uint64_t> ElfFile::offset_to_vaddr(uint64_t offset) const {
  for (const LoadSegment& s : segments_) {
    if (offset >= s.offset && offset < s.offset + s.filesz) return offset - s.offset + s.vaddr;
  }
  return std::nullopt;
}

size_t ElfFile::read_bytes(uint64_t offset, std::span<uint8_t> out) const {
  if (fd_ < 0) return 0;
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

void ElfFile::drop_descriptor() {
  if (fd_ < 0) return;
  // Everything we use is read or mapped by now: tell libelf not to touch the descriptor.
  if (elf_) {
    elf_cntl(elf_, ELF_C_FDREAD);
    elf_cntl(elf_, ELF_C_FDDONE);
  }
  ::close(fd_);
  fd_ = -1;
}

void ElfFile::release() {
  if (elf_) elf_end(elf_);
  if (fd_ >= 0) ::close(fd_);
  elf_ = nullptr;
  fd_ = -1;
}

ElfFile::ElfFile(ElfFile&& other) noexcept {
  *this = std::move(other);
}

ElfFile& ElfFile::operator=(ElfFile&& other) noexcept {
  if (this == &other) return *this;
  release();
  path_ = std::move(other.path_);
  fd_ = other.fd_;
  elf_ = other.elf_;
  machine_ = other.machine_;
  build_id_ = std::move(other.build_id_);
  segments_ = std::move(other.segments_);
  symbols_ = std::move(other.symbols_);
  other.fd_ = -1;
  other.elf_ = nullptr;
  return *this;
}

ElfFile::~ElfFile() {
  release();
}

}  // namespace seam::runtime::elf
