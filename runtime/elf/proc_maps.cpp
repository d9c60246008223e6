#include "runtime/elf/proc_maps.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>

namespace seam::runtime::elf {
namespace {

bool hex_field(std::string_view& s, char stop, uint64_t& out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out, 16);
  if (ec != std::errc() || ptr == end || *ptr != stop) return false;
  s.remove_prefix(static_cast<size_t>(ptr - s.data()) + 1);
  return true;
}

}  // namespace

std::optional<std::string_view> read_file_view(const char* path, std::string& storage) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  if (storage.size() < 65536) storage.resize(65536);
  size_t len = 0;
  while (true) {
    if (len == storage.size()) storage.resize(storage.size() * 2);
    ssize_t n = ::read(fd, storage.data() + len, storage.size() - len);
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    len += static_cast<size_t>(n);
  }
  ::close(fd);
  return std::string_view(storage.data(), len);
}

bool read_whole_file(const char* path, std::string& buf) {
  std::optional<std::string_view> content = read_file_view(path, buf);
  buf.resize(content ? content->size() : 0);
  return content.has_value();
}

// 7f12a000-7f12c000 r-xp 00001000 fe:00 337903     /usr/lib/libcudart.so.12 (deleted)
bool parse_maps_line(std::string_view line, MapsEntry& out) {
  uint64_t dev_major = 0, dev_minor = 0;
  if (!hex_field(line, '-', out.start) || !hex_field(line, ' ', out.end)) return false;
  if (line.size() < 5 || line[4] != ' ') return false;
  out.readable = line[0] == 'r';
  out.writable = line[1] == 'w';
  out.executable = line[2] == 'x';
  line.remove_prefix(5);
  if (!hex_field(line, ' ', out.offset) || !hex_field(line, ':', dev_major) ||
      !hex_field(line, ' ', dev_minor)) {
    return false;
  }
  out.dev_major = static_cast<uint32_t>(dev_major);
  out.dev_minor = static_cast<uint32_t>(dev_minor);
  const char* end = line.data() + line.size();
  auto [ptr, ec] = std::from_chars(line.data(), end, out.inode, 10);
  if (ec != std::errc()) return false;
  line.remove_prefix(static_cast<size_t>(ptr - line.data()));
  size_t path_start = line.find_first_not_of(' ');
  out.path = path_start == std::string_view::npos ? std::string_view{} : line.substr(path_start);
  constexpr std::string_view kDeleted = " (deleted)";
  out.deleted =
      out.path.size() >= kDeleted.size() && out.path.substr(out.path.size() - kDeleted.size()) == kDeleted;
  if (out.deleted) out.path.remove_suffix(kDeleted.size());
  return true;
}

std::string proc_path(pid_t pid, std::string_view leaf) {
  char digits[16];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, static_cast<long>(pid));
  std::string path;
  path.reserve(7 + static_cast<size_t>(end - digits) + leaf.size());
  path.append("/proc/").append(digits, end).append("/").append(leaf);
  return path;
}

}  // namespace seam::runtime::elf
