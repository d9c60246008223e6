#pragma once
// The USDT probes an ELF image declares: SystemTap SDT notes (.note.stapsdt, type 3, owner
// "stapsdt"), one per probe site, written by <sys/sdt.h>. seam reads only which
// provider:name pairs a file has, to attach where the probe is; libbpf reads the rest (the
// address, the semaphore and the argument specs) when it attaches.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/elf/result.hpp"

namespace seam::runtime::elf {

struct UsdtNote {
  std::string provider, name;
  std::string args;  // "8@%rdi -4@-12(%rbp)": size@location per argument
  uint64_t address = 0;
  uint64_t semaphore = 0;  // 0: the probe has no semaphore
};

// Every probe site of the file at `path`, in note order (a probe inlined twice has two sites).
Result<std::vector<UsdtNote>> read_usdt_notes(const std::string& path);

}  // namespace seam::runtime::elf
