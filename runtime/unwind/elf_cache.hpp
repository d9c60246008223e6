#pragma once
// The ELF files the unwinder reads call-frame information from, opened once and shared by
// every process's Dwfl (libelf reference counts: each Dwfl that uses a file holds one count).
// Files are mapped whole (ELF_C_READ_MMAP) and their descriptors closed at once, so the cache
// holds no open files, however many processes and libraries it covers.
#include <sys/types.h>

#include <map>
#include <string>
#include <utility>

#include <libelf.h>

namespace seam::runtime::unwind {

class ElfCache {
 public:
  ElfCache();
  ~ElfCache();
  ElfCache(const ElfCache&) = delete;
  ElfCache& operator=(const ElfCache&) = delete;

  // A new reference to the file at `path` (as process `pid` sees it: through /proc/PID/root
  // first), for a Dwfl to own and elf_end(); nullptr when it cannot be read as ELF.
  Elf* acquire(pid_t pid, const std::string& path);
  size_t files() const { return by_inode_.size(); }

 private:
  std::map<std::pair<dev_t, ino_t>, Elf*> by_inode_;
};

}  // namespace seam::runtime::unwind
