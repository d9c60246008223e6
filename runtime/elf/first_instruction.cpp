#include "runtime/elf/first_instruction.hpp"

namespace seam::runtime::elf {

const char* describe(FirstInstruction f) {
  switch (f) {
    case FirstInstruction::Nop5:
      return "nop5 (fast, ~0.3 us a hit)";
    case FirstInstruction::Push:
      return "push (emulated, ~0.6 us a hit)";
    case FirstInstruction::SingleStep:
      return "single-stepped (slow, ~20 us a hit)";
    case FirstInstruction::Unknown:
      return "unknown";
  }
  return "unknown";
}

EntryClass classify_x86_64_entry(std::span<const uint8_t> code) {
  EntryClass out;
  if (code.size() >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa) {
    out.probe_offset_delta = 4;  // endbr64: IBT wants it first; probing it would single-step
    code = code.subspan(4);
  }
  if (code.empty()) return out;
  const bool push = (code[0] >= 0x50 && code[0] <= 0x57) ||  // push %rax..%rdi
                    (code.size() >= 2 && code[0] == 0x41 && code[1] >= 0x50 && code[1] <= 0x57);  // %r8..%r15
  if (push) {
    out.first = FirstInstruction::Push;
  } else if (code.size() >= 5 && code[0] == 0x0f && code[1] == 0x1f && code[2] == 0x44 && code[3] == 0x00 &&
             code[4] == 0x00) {
    out.first = FirstInstruction::Nop5;
  } else {
    out.first = FirstInstruction::SingleStep;
  }
  return out;
}

}  // namespace seam::runtime::elf
