#include "compiler/build/content_hash.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

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

std::string hash_file(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string contents;
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) contents.append(buf, static_cast<size_t>(n));
  close(fd);
  if (n < 0) return {};
  return ContentHash().add(contents).hex();
}

}  // namespace seam::build
