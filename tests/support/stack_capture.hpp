#pragma once
// Records this thread's stack the way seam's BPF program does for `ustack`: the registers
// x86-64 call-frame information needs, taken at one instruction, and a copy of up to 8 KiB of
// the stack from sp up (to the top of the stack's mapping). For the unwinder's tests and bench.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/uio.h>
#include <unistd.h>

#include "runtime/unwind/registers.hpp"

namespace seam::test {

struct StackCapture {
  runtime::unwind::Registers regs;
  std::vector<uint8_t> stack;
  std::vector<uint64_t> expected;  // pcs the callers append (innermost first), for tests
};

inline std::string self_maps() {
  std::ifstream in("/proc/self/maps");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Where the mapping that holds `sp` ends (the top of this thread's stack).
inline uint64_t stack_top(uint64_t sp) {
  std::istringstream lines(self_maps());
  std::string line;
  while (std::getline(lines, line)) {
    uint64_t lo = std::stoull(line.substr(0, line.find('-')), nullptr, 16);
    uint64_t hi = std::stoull(line.substr(line.find('-') + 1), nullptr, 16);
    if (sp >= lo && sp < hi) return hi;
  }
  return sp;
}

// The registers are stored to memory in one asm block, so that none is disturbed; then the
// copy. Puts its own pc and its return address first in `expected`.
__attribute__((noinline)) inline int capture_stack(StackCapture* c) {
  uint64_t r[8];
  __asm__ volatile(
      "lea 0(%%rip), %%rax\n\t"
      "mov %%rax, 0(%0)\n\t"
      "mov %%rsp, 8(%0)\n\t"
      "mov %%rbp, 16(%0)\n\t"
      "mov %%rbx, 24(%0)\n\t"
      "mov %%r12, 32(%0)\n\t"
      "mov %%r13, 40(%0)\n\t"
      "mov %%r14, 48(%0)\n\t"
      "mov %%r15, 56(%0)\n\t"
      :
      : "r"(r)
      : "rax", "memory");
  c->regs = {r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]};
  c->expected.insert(c->expected.begin(), {r[0], reinterpret_cast<uint64_t>(__builtin_return_address(0))});
  uint64_t size = std::min<uint64_t>(8192, stack_top(r[1]) - r[1]);
  c->stack.resize(size);
  // The kernel copies, as bpf_probe_read_user does for seam: the bytes span other frames' ASan
  // redzones, which a memcpy reports in the sanitizer build (-DSEAM_SANITIZE=ON).
  iovec local{c->stack.data(), size};
  iovec remote{reinterpret_cast<void*>(r[1]), size};
  ssize_t copied = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  c->stack.resize(copied > 0 ? static_cast<size_t>(copied) : 0);
  return 1;
}

}  // namespace seam::test
