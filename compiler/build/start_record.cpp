#include "compiler/build/start_record.hpp"

#include <sys/stat.h>

#include "compiler/build/content_hash.hpp"
#include "compiler/build/kernel_types.hpp"
#include "compiler/build/object_cache.hpp"

namespace seam::build {

namespace {

std::string identity_of(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return path + ": missing";
  return path + ":" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
         std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

StartRecord start_record(const std::vector<std::string>& files) {
  ContentHash name, state;
  name.add("start");
  for (const std::string& f : files) {
    name.add(f);
    state.add(identity_of(f));
  }
  state.add(identity_of("/proc/self/exe")).add(kernel_btf_identity());
  return {"start-" + name.hex(), state.hex()};
}

bool recorded(const std::string& cache_dir, const StartRecord& record) {
  return ObjectCache(cache_dir).read_record(record.name) == record.state;
}

void keep_record(const std::string& cache_dir, const StartRecord& record) {
  if (!recorded(cache_dir, record)) (void)ObjectCache(cache_dir).write_record(record.name, record.state);
}

}  // namespace seam::build
