#include "compiler/build/content_hash.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>

namespace seam::build {

namespace {
XXH3_state_t* state(void* p) {
  return static_cast<XXH3_state_t*>(p);
}
}  // namespace

ContentHash::ContentHash() : state_(XXH3_createState()) {
  XXH3_128bits_reset(state(state_));
}

ContentHash::~ContentHash() {
  XXH3_freeState(state(state_));
}

ContentHash& ContentHash::add(std::string_view part) {
  uint64_t len = part.size();
  XXH3_128bits_update(state(state_), &len, sizeof len);
  XXH3_128bits_update(state(state_), part.data(), part.size());
  return *this;
}

std::string ContentHash::hex() const {
  XXH128_hash_t h = XXH3_128bits_digest(state(state_));
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

// Only a regular file is read, and only up to its size at open: a FIFO or a link to /dev/zero
// planted among rule files must neither block seam in open() nor grow it without end.
std::string hash_file(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<uint64_t>(st.st_size) > kMaxHashedFileBytes) {
    close(fd);
    return {};
  }
  std::string contents;
  char buf[1 << 16];
  ssize_t n = 0;
  while (contents.size() < static_cast<size_t>(st.st_size)) {
    size_t want = std::min(sizeof buf, static_cast<size_t>(st.st_size) - contents.size());
    n = read(fd, buf, want);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    contents.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (n < 0) return {};
  return ContentHash().add(contents).hex();
}

}  // namespace seam::build
