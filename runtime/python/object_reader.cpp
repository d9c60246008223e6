#include "runtime/python/object_reader.hpp"

#include <cstring>

#include "runtime/python/process_memory.hpp"

namespace seam::runtime::python {

namespace {

// PyASCIIObject: ob_refcnt, ob_type, length, hash, then the state bits at 32: interned (2),
// kind (3), compact (1), ascii (1). The same in 3.8 to 3.13. PyBytesObject: ob_size at 16, the
// bytes at 32.
constexpr uint64_t kLength = 16, kState = 32, kBytesSize = 16, kBytesData = 32;

}  // namespace

std::optional<uint64_t> read_u64(pid_t pid, uint64_t address) {
  uint64_t v = 0;
  if (!read_process_memory(pid, address, {reinterpret_cast<uint8_t*>(&v), sizeof v})) return std::nullopt;
  return v;
}

std::optional<int32_t> read_i32(pid_t pid, uint64_t address) {
  int32_t v = 0;
  if (!read_process_memory(pid, address, {reinterpret_cast<uint8_t*>(&v), sizeof v})) return std::nullopt;
  return v;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x110000) {
    out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.append("\xef\xbf\xbd");  // U+FFFD
  }
}

std::optional<std::string> read_str(pid_t pid, uint64_t address, const CodeLayout& layout) {
  if (!address) return std::nullopt;
  uint8_t head[40];
  if (!read_process_memory(pid, address, head)) return std::nullopt;
  int64_t length = 0;
  uint32_t state = 0;
  std::memcpy(&length, head + kLength, 8);
  std::memcpy(&state, head + kState, 4);
  unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
  if (!compact || length < 0 || (kind != 1 && kind != 2 && kind != 4)) return std::nullopt;
  size_t n = std::min<size_t>(static_cast<size_t>(length), kMaxStrChars);
  std::vector<uint8_t> data(n * kind);
  uint64_t at = address + (ascii ? layout.ascii_header : layout.compact_header);
  if (n && !read_process_memory(pid, at, data)) return std::nullopt;
  std::string out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t cp = 0;
    std::memcpy(&cp, data.data() + i * kind, kind);
    append_utf8(out, cp);
  }
  return out;
}

std::optional<std::vector<uint8_t>> read_bytes_object(pid_t pid, uint64_t address) {
  if (!address) return std::nullopt;
  std::optional<uint64_t> size = read_u64(pid, address + kBytesSize);
  if (!size || *size > kMaxBytes) return std::nullopt;
  std::vector<uint8_t> out(*size);
  if (*size && !read_process_memory(pid, address + kBytesData, out)) return std::nullopt;
  return out;
}

}  // namespace seam::runtime::python
