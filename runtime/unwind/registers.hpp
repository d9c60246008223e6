#pragma once
// What a record's stack copy gives the unwinder: the user registers at the probe (the ones
// x86-64 call-frame information needs) and the copied top of the stack.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace seam::runtime::unwind {

struct Registers {
  uint64_t ip = 0, sp = 0, bp = 0, bx = 0, r12 = 0, r13 = 0, r14 = 0, r15 = 0;
};

struct StackSnapshot {
  Registers regs;
  std::span<const uint8_t> stack;  // the memory from regs.sp upwards
  // regs.ip is a return address (the registers of a function's return), not the instruction
  // that was running: it is named as the call before it.
  bool ip_is_return = false;
};

struct UnwoundFrame {
  uint64_t pc = 0;
  bool is_return = false;  // a return address: the call is the instruction before it
};

struct Unwound {
  std::vector<UnwoundFrame> frames;  // innermost first; never an address outside mapped code
  // Why it stops before the outermost frame; empty when it reached the end of the chain.
  std::string truncated;
};

}  // namespace seam::runtime::unwind
