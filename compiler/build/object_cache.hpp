#pragma once
// Compiled BPF objects on disk, keyed by everything that decides their bytes, so that a restart
// with unchanged rules runs no compiler at all.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace seam::build {

// $SEAM_CACHE_DIR, else /var/cache/seam for root, else $XDG_CACHE_HOME/seam or ~/.cache/seam.
std::string default_cache_dir();

class ObjectCache {
 public:
  explicit ObjectCache(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }
  std::string path_for(const std::string& key) const { return dir_ + "/" + key + ".bpf.o"; }

  std::optional<std::vector<uint8_t>> load(const std::string& key) const;
  // Writes a temporary file and renames it into place, so readers never see half an object.
  // Returns false (with *error) when the cache cannot be written; the build still succeeds.
  bool store(const std::string& key, const std::vector<uint8_t>& object, std::string* error) const;

 private:
  std::string dir_;
};

}  // namespace seam::build
