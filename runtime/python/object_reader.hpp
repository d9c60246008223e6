#pragma once
// Reads CPython objects out of another process's memory: a str (compact ASCII or compact
// Latin-1/UCS-2/UCS-4, as PEP 393 lays them out; to UTF-8), a bytes object, an int field.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/python/frame_layout.hpp"

namespace seam::runtime::python {

inline constexpr size_t kMaxStrChars = 4096;
inline constexpr size_t kMaxBytes = 1 << 20;

std::optional<uint64_t> read_u64(pid_t pid, uint64_t address);
std::optional<int32_t> read_i32(pid_t pid, uint64_t address);
// The str object at `address`, as UTF-8; nullopt when it is not a compact str seam can read.
std::optional<std::string> read_str(pid_t pid, uint64_t address, const CodeLayout& layout);
std::optional<std::vector<uint8_t>> read_bytes_object(pid_t pid, uint64_t address);

// Code point to UTF-8 (the str's characters).
void append_utf8(std::string& out, uint32_t cp);

}  // namespace seam::runtime::python
