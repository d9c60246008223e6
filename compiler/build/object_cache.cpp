#include "compiler/build/object_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <set>

namespace seam::build {

namespace {

// After the ELF bytes: the key, its length (4 bytes, little-endian) and this magic.
constexpr char kTrailerMagic[8] = {'S', 'E', 'A', 'M', 'K', 'E', 'Y', '1'};
constexpr uint64_t kMaxObjectBytes = 256ull << 20;
constexpr uint64_t kMaxRecordBytes = 4096;

// Who may have written `st`: nullopt when only seam's own user.
std::optional<std::string> foreign_writer(const struct stat& st) {
  if (st.st_uid != geteuid())
    return "owned by uid " + std::to_string(st.st_uid) + ", not seam's uid " + std::to_string(geteuid());
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return std::string("writable by ") + ((st.st_mode & S_IWOTH) ? "others" : "its group") + " (mode " +
           mode + ")";
  }
  return std::nullopt;
}

// Once per directory and process: builds run in parallel and each would say it again.
void note_once(const std::string& dir, const std::string& reason) {
  static std::mutex mu;
  static std::set<std::string> told;
  std::lock_guard lock(mu);
  if (!told.insert(dir).second) return;
  std::cerr << "seam: note: ignoring the object cache " << dir << ": " << reason
            << "; compiling every object (fix with chown/chmod go-w, or set SEAM_CACHE_DIR)\n";
}

}  // namespace

std::string default_cache_dir() {
  if (const char* env = std::getenv("SEAM_CACHE_DIR"); env && *env) return env;
  if (geteuid() == 0) return "/var/cache/seam";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/seam";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/seam";
}

std::optional<std::string> ObjectCache::unsafe_reason() const {
  struct stat st {};
  if (::stat(dir_.c_str(), &st) != 0)
    return errno == ENOENT ? std::nullopt : std::optional(std::string(strerror(errno)));
  if (!S_ISDIR(st.st_mode)) return "not a directory";
  return foreign_writer(st);
}

std::optional<std::vector<uint8_t>> ObjectCache::load(const std::string& key) const {
  if (auto why = unsafe_reason()) {
    note_once(dir_, *why);
    return std::nullopt;
  }
  std::optional<std::string> foreign;
  std::vector<uint8_t> bytes = read_entry(path_for(key), kMaxObjectBytes, &foreign);
  if (foreign) note_once(path_for(key), *foreign);
  // The trailer must name this very key: an entry copied over another is not this object.
  size_t tail = sizeof kTrailerMagic + 4;
  if (bytes.size() < tail + key.size() + 4) return std::nullopt;
  if (std::memcmp(bytes.data() + bytes.size() - sizeof kTrailerMagic, kTrailerMagic, sizeof kTrailerMagic) !=
      0)
    return std::nullopt;
  const uint8_t* len_at = bytes.data() + bytes.size() - tail;
  uint32_t key_len =
      len_at[0] | (len_at[1] << 8) | (len_at[2] << 16) | (static_cast<uint32_t>(len_at[3]) << 24);
  if (key_len != key.size() || bytes.size() < tail + key_len) return std::nullopt;
  size_t object_size = bytes.size() - tail - key_len;
  if (std::memcmp(bytes.data() + object_size, key.data(), key_len) != 0) return std::nullopt;
  bytes.resize(object_size);
  if (bytes.size() < 4 || bytes[0] != 0x7f || bytes[1] != 'E') return std::nullopt;  // not an ELF: ignore
  return bytes;
}

Result<void> ObjectCache::store(const std::string& key, const std::vector<uint8_t>& object) const {
  std::vector<uint8_t> bytes = object;
  bytes.insert(bytes.end(), key.begin(), key.end());
  uint32_t len = static_cast<uint32_t>(key.size());
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(len >> (8 * i)));
  bytes.insert(bytes.end(), kTrailerMagic, kTrailerMagic + sizeof kTrailerMagic);
  return write_entry(path_for(key), key.substr(0, 16), bytes);
}

std::string ObjectCache::read_record(const std::string& name) const {
  if (unsafe_reason()) return {};
  std::optional<std::string> foreign;
  std::vector<uint8_t> bytes = read_entry(record_path(name), kMaxRecordBytes, &foreign);
  return std::string(bytes.begin(), bytes.end());
}

std::vector<uint8_t> ObjectCache::read_entry(const std::string& path, uint64_t max_bytes,
                                             std::optional<std::string>* foreign) const {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st {};
  std::vector<uint8_t> bytes;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) <= max_bytes) {
    *foreign = foreign_writer(st);
    if (*foreign) {
      ::close(fd);
      return {};
    }
    bytes.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    bytes.resize(done);
  }
  ::close(fd);
  return bytes;
}

Result<void> ObjectCache::write_record(const std::string& name, const std::string& text) const {
  return write_entry(record_path(name), name.substr(0, 16), std::vector<uint8_t>(text.begin(), text.end()));
}

Result<void> ObjectCache::write_entry(const std::string& path, const std::string& tmp_tag,
                                      const std::vector<uint8_t>& bytes) const {
  std::error_code ec;
  if (!std::filesystem::exists(dir_, ec)) {
    std::filesystem::create_directories(dir_, ec);
    if (!ec) ::chmod(dir_.c_str(), 0700);
  }
  if (ec)
    return Error{"cannot create cache directory " + dir_ + ": " + ec.message(), code_of_errno(ec.value())};
  if (auto why = unsafe_reason()) {
    note_once(dir_, *why);
    return Error{"not writing to the object cache " + dir_ + ": " + *why, ErrorCode::Denied};
  }
  // mkstemp: a fresh name opened with O_EXCL, so a link planted in the cache is never followed.
  std::string tmp = dir_ + "/.tmp-" + tmp_tag + "-XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    return Error{"cannot create a temporary file in " + dir_ + ": " + std::strerror(errno),
                 code_of_errno(errno)};
  ::fchmod(fd, 0644);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  bool written = done == bytes.size();
  int saved_errno = errno;
  ::close(fd);
  if (!written) {
    ::unlink(tmp.c_str());
    return Error{"cannot write " + tmp + ": " + std::strerror(saved_errno), code_of_errno(saved_errno)};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Error{"cannot rename " + tmp + ": " + std::strerror(err), code_of_errno(err)};
  }
  return {};
}

}  // namespace seam::build
