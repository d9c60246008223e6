#include "runtime/run/live_generation.hpp"

#include <bpf/bpf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace seam::runtime {

LiveGeneration::LiveGeneration() {
  fd_ = bpf_map_create(BPF_MAP_TYPE_ARRAY, "seam_live_gen", sizeof(uint32_t), sizeof(uint32_t), 1, nullptr);
  if (fd_ < 0) {
    error_ = std::string("cannot create the live generation map: ") + std::strerror(errno);
    return;
  }
  if (!flip(live_)) {
    error_ = std::string("cannot write the live generation map: ") + std::strerror(errno);
    close(fd_);
    fd_ = -1;
  }
}

LiveGeneration::~LiveGeneration() {
  if (fd_ >= 0) close(fd_);
}

bool LiveGeneration::flip(uint32_t generation) {
  uint32_t zero = 0;
  if (fd_ < 0 || bpf_map_update_elem(fd_, &zero, &generation, BPF_ANY) != 0) return false;
  live_ = generation;
  return true;
}

}  // namespace seam::runtime
