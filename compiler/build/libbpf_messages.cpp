#include "compiler/build/libbpf_messages.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace seam::build {

namespace {

thread_local std::string* messages_into = nullptr;

int keep_message(libbpf_print_level level, const char* fmt, va_list args) {
  if (!messages_into || level == LIBBPF_DEBUG) return 0;
  char buf[1024];
  int n = std::vsnprintf(buf, sizeof buf, fmt, args);
  if (n > 0) messages_into->append(buf, std::min(static_cast<size_t>(n), sizeof buf - 1));
  return n;
}

}  // namespace

LibbpfMessages::LibbpfMessages(std::string* into) : previous_(libbpf_set_print(keep_message)) {
  messages_into = into;
}

LibbpfMessages::~LibbpfMessages() {
  messages_into = nullptr;
  libbpf_set_print(previous_);
}

}  // namespace seam::build
