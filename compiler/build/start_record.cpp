#include "compiler/build/start_record.hpp"

#include <sys/stat.h>

#include "compiler/build/content_hash.hpp"
#include "compiler/build/kernel_types.hpp"
#include "compiler/build/object_cache.hpp"

namespace seam::build {

namespace {

// The file's identity for the state; `size` gets its size (0 when it is missing).
std::string identity_of(const std::string& path, size_t* size = nullptr) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return path + ": missing";
  if (size) *size = static_cast<size_t>(st.st_size);
  return path + ":" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
         std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

StartRecord start_record(const std::vector<std::string>& files, const std::vector<std::string>& modules,
                         const std::string& settings) {
  ContentHash name, state;
  StartRecord record;
  name.add("start");
  for (const std::string& f : files) {
    size_t size = 0;
    name.add(f);
    state.add(identity_of(f, &size));
    record.bytes += size;
  }
  for (const std::string& m : modules) state.add(identity_of(m));
  state.add(settings).add(identity_of("/proc/self/exe")).add(kernel_btf_identity());
  record.name = "start-" + name.hex();
  record.state = state.hex();
  return record;
}

bool recorded(const std::string& cache_dir, const StartRecord& record) {
  return ObjectCache(cache_dir).read_record(record.name) == record.state;
}

void keep_record(const std::string& cache_dir, const StartRecord& record) {
  (void)ObjectCache(cache_dir).write_record(record.name, record.state);
}

}  // namespace seam::build
