#pragma once
// libbpf reports through one process-wide print callback. While a LibbpfMessages lives, what
// libbpf prints on this thread (warnings and errors; not its debug output) goes into `into`
// instead of stderr, or nowhere when `into` is null; the previous callback comes back after.
#include <bpf/libbpf.h>

#include <string>

namespace seam::build {

class LibbpfMessages {
 public:
  explicit LibbpfMessages(std::string* into);
  ~LibbpfMessages();
  LibbpfMessages(const LibbpfMessages&) = delete;
  LibbpfMessages& operator=(const LibbpfMessages&) = delete;

 private:
  libbpf_print_fn_t previous_;
};

}  // namespace seam::build
