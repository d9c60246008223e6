#pragma once
// The switch that hands a run over from one object to the next (bpf-templates/seam_generation.h):
// a one-slot map holding the generation that acts. Each object is loaded with its own generation
// and shares the map by fd; its programs return at once while another generation is live. A
// reload attaches the next object (not live: it does nothing yet), flips the map to it (one
// write: from that instant only the new programs act), then detaches the old one.
#include <cstdint>
#include <string>

namespace seam::runtime {

class LiveGeneration {
 public:
  // Creates the map with generation 1 live; error() says why not (then fd() is -1 and every
  // object uses its own map and always acts, as when both objects fired during a reload).
  LiveGeneration();
  ~LiveGeneration();
  LiveGeneration(const LiveGeneration&) = delete;
  LiveGeneration& operator=(const LiveGeneration&) = delete;

  int fd() const { return fd_; }
  const std::string& error() const { return error_; }
  uint32_t live() const { return live_; }
  // The generation the next object to load gets (one past the live one).
  uint32_t next() const { return live_ + 1; }
  // Makes `generation` the one that acts; false (the live one unchanged) when the write fails.
  bool flip(uint32_t generation);

 private:
  int fd_ = -1;
  uint32_t live_ = 1;
  std::string error_;
};

}  // namespace seam::runtime
