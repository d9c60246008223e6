#pragma once
// What a uprobe costs depends on the instruction it replaces: the kernel emulates a few
// (push, 5-byte nop) and single-steps every other one out of line, which is ~30 times slower.
// The runtime reports the slow ones, so we look at the first instruction of each probed function.
#include <cstdint>
#include <span>

namespace seam::runtime::elf {

enum class FirstInstruction {
  Nop5,        // 0f 1f 44 00 00: the kernel optimizes it away (~0.3 us a hit)
  Push,        // push %reg: emulated (~0.6 us a hit)
  SingleStep,  // anything else: executed out of line with a trap (~20 us a hit)
  Unknown,     // no bytes to look at, or not x86-64
};

const char* describe(FirstInstruction f);

struct EntryClass {
  FirstInstruction first = FirstInstruction::Unknown;
  uint64_t probe_offset_delta = 0;  // 4 after an endbr64: the probe goes on the next instruction
};

// Classifies the x86-64 code at a function's start.
EntryClass classify_x86_64_entry(std::span<const uint8_t> code);

}  // namespace seam::runtime::elf
