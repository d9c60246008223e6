#include "runtime/unwind/elf_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/elf/proc_maps.hpp"

namespace seam::runtime::unwind {

ElfCache::ElfCache() {
  elf_version(EV_CURRENT);
}

ElfCache::~ElfCache() {
  for (auto& [key, elf] : by_inode_) elf_end(elf);
}

Elf* ElfCache::acquire(pid_t pid, const std::string& path) {
  if (path.empty() || path.front() != '/') return nullptr;
  // The process's own view of the path first (a container's root), then the host's.
  int fd = ::open((elf::proc_path(pid, "root") + path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return nullptr;
  }
  std::pair<dev_t, ino_t> key{st.st_dev, st.st_ino};
  auto it = by_inode_.find(key);
  if (it != by_inode_.end()) {
    ::close(fd);
    return elf_begin(-1, ELF_C_READ_MMAP, it->second);  // one more reference to the same file
  }
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf && elf_kind(elf) != ELF_K_ELF) {
    elf_end(elf);
    elf = nullptr;
  }
  if (elf) elf_cntl(elf, ELF_C_FDDONE);  // all mapped: the descriptor is not needed again
  ::close(fd);
  if (!elf) return nullptr;
  by_inode_[key] = elf;
  return elf_begin(-1, ELF_C_READ_MMAP, elf);
}

}  // namespace seam::runtime::unwind
