#pragma once
// Compiled BPF objects on disk, keyed by everything that decides their bytes, so that a restart
// with unchanged rules runs no compiler at all.
//
// What is loaded from the cache runs in the kernel, so the cache is trusted only when no one
// else could have written it: the directory (and each object) must be owned by seam's user and
// not writable by group or others; otherwise the cache is ignored, with a note on stderr, and
// every object is compiled. Objects are written to an O_EXCL temporary (never through a planted
// link) and renamed into place, and each carries the key that names it: a file copied or renamed
// over another key's entry is detected and ignored.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/diag/result.hpp"

namespace seam::build {

// $SEAM_CACHE_DIR, else /var/cache/seam for root, else $XDG_CACHE_HOME/seam or ~/.cache/seam.
std::string default_cache_dir();

class ObjectCache {
 public:
  explicit ObjectCache(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }
  std::string path_for(const std::string& key) const { return dir_ + "/" + key + ".bpf.o"; }
  std::string record_path(const std::string& name) const { return dir_ + "/" + name + ".record"; }

  // The object stored under `key`, without its key trailer; nullopt when missing, not an
  // object, stored under another key, or when the cache is not safe (see above).
  std::optional<std::vector<uint8_t>> load(const std::string& key) const;
  // Writes a temporary file and renames it into place, so readers never see half an object.
  // An error when the cache cannot be written; the build still succeeds.
  Result<void> store(const std::string& key, const std::vector<uint8_t>& object) const;

  // Why the cache directory is not to be trusted, or nullopt when it is (or does not exist yet).
  std::optional<std::string> unsafe_reason() const;

  // A short text kept beside the objects under `name` (`<name>.record`: start_record.hpp), written
  // as objects are. Read back empty when missing, too long, or where an object would be ignored.
  std::string read_record(const std::string& name) const;
  Result<void> write_record(const std::string& name, const std::string& text) const;

 private:
  // The bytes of the regular file at `path`, opened without following a link; empty when it is
  // missing or larger than `max_bytes`, and when another user could have written it (`foreign`
  // then says how).
  std::vector<uint8_t> read_entry(const std::string& path, uint64_t max_bytes,
                                  std::optional<std::string>* foreign) const;
  // `bytes` at `path` in the cache directory (made if missing), through a fresh temporary file
  // whose name carries `tmp_tag`.
  Result<void> write_entry(const std::string& path, const std::string& tmp_tag,
                           const std::vector<uint8_t>& bytes) const;
  std::string dir_;
};

}  // namespace seam::build
