#include "compiler/build/object_cache.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace seam::build {

std::string default_cache_dir() {
  if (const char* env = std::getenv("SEAM_CACHE_DIR"); env && *env) return env;
  if (geteuid() == 0) return "/var/cache/seam";
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/seam";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/seam";
}

std::optional<std::vector<uint8_t>> ObjectCache::load(const std::string& key) const {
  std::ifstream in(path_for(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 4 || bytes[0] != 0x7f || bytes[1] != 'E') return std::nullopt;  // not an ELF: ignore
  return bytes;
}

bool ObjectCache::store(const std::string& key, const std::vector<uint8_t>& object,
                        std::string* error) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    if (error) *error = "cannot create cache directory " + dir_ + ": " + ec.message();
    return false;
  }
  std::string tmp = path_for(key) + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(object.data()), static_cast<std::streamsize>(object.size()));
    if (!out.flush()) {
      if (error) *error = "cannot write " + tmp + ": " + std::strerror(errno);
      std::filesystem::remove(tmp, ec);
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path_for(key).c_str()) != 0) {
    if (error) *error = "cannot rename " + tmp + ": " + std::strerror(errno);
    std::filesystem::remove(tmp, ec);
    return false;
  }
  return true;
}

}  // namespace seam::build
