#pragma once
// /proc/PID/maps, parsed by hand: the runtime rescans every process every ~500 ms and on every
// exec, so this avoids regexes, streams and per-line allocations. Lives in runtime/elf because
// both discover (which libraries are mapped) and symbolize (where) read it.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace seam::runtime::elf {

struct MapsEntry {
  uint64_t start = 0, end = 0;
  uint64_t offset = 0;  // file offset of `start`
  uint32_t dev_major = 0, dev_minor = 0;
  uint64_t inode = 0;
  bool readable = false, writable = false, executable = false;
  bool deleted = false;   // the path ended with " (deleted)" (stripped from `path`)
  std::string_view path;  // as the process sees it; "" or "[heap]" etc. for anonymous mappings
  // A mapping of a file by absolute path that is still on disk.
  bool is_file() const { return inode != 0 && !path.empty() && path.front() == '/' && !deleted; }
};

// Reads a whole file (a /proc entry: no size known ahead) into `buf`, which is reused across
// calls to avoid reallocations. False when it cannot be opened (the process is gone, or we may
// not look).
bool read_whole_file(const char* path, std::string& buf);
// The same for hot loops: `storage` keeps its size as spare room (no clearing between calls);
// the returned view holds the content. nullopt when the file cannot be read.
std::optional<std::string_view> read_file_view(const char* path, std::string& storage);

// Parses one line (without its newline). False for a malformed line.
bool parse_maps_line(std::string_view line, MapsEntry& out);

// Calls fn(const MapsEntry&) for each well-formed line of a maps file's text.
template <class Fn>
void for_each_mapping(std::string_view text, Fn&& fn) {
  MapsEntry entry;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (parse_maps_line(line, entry)) fn(static_cast<const MapsEntry&>(entry));
  }
}

// Calls fn(std::string_view line) for each line (without its newline) whose permissions say
// executable ("r-xp"), skipped on that one byte before any parsing: most lines are not. The one
// filter of for_each_executable_mapping and of a scan round's kept text (proc_maps_round.cpp).
template <class Fn>
void for_each_executable_line(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    size_t space = line.find(' ');
    if (space == std::string_view::npos || space + 3 >= line.size() || line[space + 3] != 'x') continue;
    fn(line);
  }
}

// The same for executable mappings only, parsed, which is all discovery and symbolization want.
template <class Fn>
void for_each_executable_mapping(std::string_view text, Fn&& fn) {
  MapsEntry entry;
  for_each_executable_line(text, [&](std::string_view line) {
    if (parse_maps_line(line, entry)) fn(static_cast<const MapsEntry&>(entry));
  });
}

// "/proc/<pid>/<leaf>" without going through streams.
std::string proc_path(pid_t pid, std::string_view leaf);

}  // namespace seam::runtime::elf
