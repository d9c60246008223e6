#include "compiler/build/link_objects.hpp"

#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>

namespace seam::build {

namespace {

// libbpf reports through one process-wide print callback: a link holds it (and this mutex) while
// it runs, and keeps the warnings and errors for its error message.
std::mutex print_mutex;
std::string* link_messages = nullptr;

int keep_message(libbpf_print_level level, const char* fmt, va_list args) {
  if (!link_messages || level == LIBBPF_DEBUG) return 0;
  char buf[512];
  int n = std::vsnprintf(buf, sizeof buf, fmt, args);
  if (n > 0) link_messages->append(buf, std::min(static_cast<size_t>(n), sizeof buf - 1));
  return n;
}

struct LinkerFree {
  void operator()(bpf_linker* l) const { bpf_linker__free(l); }
};

}  // namespace

Result<void> link_bpf_objects(const std::vector<std::string>& inputs, const std::string& output) {
  std::lock_guard<std::mutex> hold(print_mutex);
  std::string messages;
  link_messages = &messages;
  libbpf_print_fn_t previous = libbpf_set_print(keep_message);
  auto failed = [&](const std::string& what, int err) -> Result<void> {
    std::string text = what + ": " + std::strerror(err < 0 ? -err : err);
    while (!messages.empty() && messages.back() == '\n') messages.pop_back();
    if (!messages.empty()) text += " (libbpf: " + messages + ")";
    return Error{text};
  };
  Result<void> result;
  std::unique_ptr<bpf_linker, LinkerFree> linker(bpf_linker__new(output.c_str(), nullptr));
  if (!linker) {
    result = failed("cannot start linking " + output, errno);
  } else {
    for (const std::string& in : inputs) {
      if (int err = bpf_linker__add_file(linker.get(), in.c_str(), nullptr); err != 0) {
        result = failed("cannot link " + in + " into " + output, err);
        break;
      }
    }
    if (result) {
      if (int err = bpf_linker__finalize(linker.get()); err != 0)
        result = failed("cannot write " + output, err);
    }
  }
  linker.reset();
  libbpf_set_print(previous);
  link_messages = nullptr;
  return result;
}

}  // namespace seam::build
