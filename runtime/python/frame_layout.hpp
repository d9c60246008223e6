#pragma once
// Where CPython keeps what a `pystack` walk and its naming read, per minor version: the thread
// state's frame chain (for the kernel, plan::CpythonProcess) and the code object's names and
// line table (for user space, runtime/python/frame_namer.hpp). 3.8 to 3.12 and the TSS key of
// 3.13 from the table in frame_layout.cpp (read off the DWARF of the pyenv builds;
// tests/unit/python_frame_layout_test.cpp checks it against that DWARF); 3.13's frame and code
// offsets from the _Py_DebugOffsets at the start of its _PyRuntime.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "compiler/plan/plan.hpp"

namespace seam::runtime::python {

// How co_lnotab / co_linetable maps an instruction to a line (runtime/python/line_table.hpp).
enum class LineTableFormat {
  Lnotab,     // 3.8, 3.9: co_lnotab, (byte offset delta, line delta) pairs
  Linetable,  // 3.10: co_linetable, (byte length, line delta; -128: no line) pairs
  Locations,  // 3.11+: co_linetable, the location table (PEP 626/657 entries)
};

struct CodeLayout {
  uint32_t filename = 0, name = 0, qualname = 0;  // str *; qualname 0: none (3.8 to 3.10)
  uint32_t firstlineno = 0;                       // int
  uint32_t linetable = 0;                         // bytes *: co_lnotab or co_linetable
  uint32_t code_adaptive = 0;                     // the first code unit (3.11+); 0: none
  LineTableFormat format = LineTableFormat::Lnotab;
  bool lasti_in_bytes = false;   // f_lasti counts bytes (3.8, 3.9); else code units (3.10+)
  uint32_t ascii_header = 48;    // sizeof(PyASCIIObject): the data of a compact ASCII str
  uint32_t compact_header = 72;  // sizeof(PyCompactUnicodeObject): the data of other compact strs
};

struct FrameLayout {
  int minor = 0;
  uint32_t tss_key = 0;  // autoTSSkey._key in _PyRuntime
  uint32_t tstate_frame = 0, cframe_frame = plan::kNoCframe;
  uint32_t frame_back = 0, frame_code = 0, frame_instr = 0, frame_owner = 0, frame_read = 0;
  uint32_t frame_entry = 0;   // is_entry (3.11); 0: none
  bool instr_is_int = false;  // f_lasti (3.8 to 3.10); else a pointer to the instruction
  CodeLayout code;
};

// glibc's struct pthread keeps its first 32 thread-specific values at this offset from the
// thread pointer (the fs base), 16 bytes each ({seq, data}): glibc 2.28 to 2.40 on x86-64.
inline constexpr uint32_t kGlibcTssBase = 0x310;

// The table's entry for CPython 3.<minor> (3.8 to 3.12); nullopt for another.
std::optional<FrameLayout> frame_table_layout(int minor);

// 3.13: bytes of _Py_DebugOffsets this reads (through its code_object section).
inline constexpr size_t kDebugOffsetsFrameBytes = 352;
// 3.13's layout from its debug offsets (their cookie, version and build are checked by
// debug_offsets_layout, cpython_layout.hpp); nullopt and *why when they leave a field at 0.
std::optional<FrameLayout> debug_offsets_frame_layout(std::span<const uint8_t> bytes, std::string* why);

// Fills the frame-walk half of a process map value.
void add_frames(plan::CpythonProcess& value, const FrameLayout& layout);

}  // namespace seam::runtime::python
