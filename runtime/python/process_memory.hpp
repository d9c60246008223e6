#pragma once
// Reads another process's memory through /proc/PID/mem (root; no ptrace stop needed to read).
#include <sys/types.h>

#include <cstdint>
#include <span>

namespace seam::runtime::python {

// True when all of `out` was read from `address` in process `pid`.
bool read_process_memory(pid_t pid, uint64_t address, std::span<uint8_t> out);

}  // namespace seam::runtime::python
