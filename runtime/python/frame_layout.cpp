#include "runtime/python/frame_layout.hpp"

#include <algorithm>
#include <cstring>

namespace seam::runtime::python {

namespace {

// Read off the DWARF of the pyenv builds 3.8.18, 3.9.18, 3.10.13, 3.11.7, 3.12.1 and 3.13.0.
// 3.8 to 3.10: tstate->frame, a PyFrameObject {f_back, f_code, f_lasti}. 3.11, 3.12:
// tstate->cframe->current_frame, an _PyInterpreterFrame {f_code, previous, prev_instr, owner}.
FrameLayout table_entry(int minor) {
  FrameLayout l;
  l.minor = minor;
  CodeLayout& c = l.code;
  if (minor <= 10) {
    l.tss_key = minor == 8 ? 1396 : 588;
    l.tstate_frame = 24;
    l.frame_back = 24;
    l.frame_code = 32;
    l.frame_instr = minor == 10 ? 96 : 104;
    l.frame_read = 112;
    l.instr_is_int = true;
    c.filename = 104;
    c.name = 112;
    c.firstlineno = 40;
    c.linetable = 120;
    c.format = minor == 10 ? LineTableFormat::Linetable : LineTableFormat::Lnotab;
    c.lasti_in_bytes = minor < 10;
    return l;
  }
  l.tstate_frame = 56;
  l.frame_read = 72;
  c.filename = 112;
  c.name = 120;
  c.qualname = 128;
  c.linetable = 136;
  c.format = LineTableFormat::Locations;
  if (minor == 11) {
    l.tss_key = 596;
    l.cframe_frame = 8;
    l.frame_code = 32;
    l.frame_back = 48;
    l.frame_instr = 56;
    l.frame_owner = 69;
    l.frame_entry = 68;
    c.firstlineno = 72;
    c.code_adaptive = 184;
  } else {  // 3.12
    l.tss_key = 1548;
    l.cframe_frame = 0;
    l.frame_code = 0;
    l.frame_back = 8;
    l.frame_instr = 56;
    l.frame_owner = 70;
    c.firstlineno = 68;
    c.code_adaptive = 192;
    c.ascii_header = 40;
    c.compact_header = 56;
  }
  return l;
}

// 3.13.0's autoTSSkey._key in _PyRuntime (not among the debug offsets).
constexpr uint32_t kTssKey313 = 2164;

uint32_t u32_at(std::span<const uint8_t> bytes, size_t offset) {
  uint64_t v = 0;
  std::memcpy(&v, bytes.data() + offset, sizeof(v));
  return static_cast<uint32_t>(v);
}

// 3.13's _Py_DebugOffsets (Include/internal/pycore_runtime.h), after the sections
// cpython_layout.cpp reads: thread_state at 152 {size, prev, next, interp, current_frame, ...},
// interpreter_frame at 224 {size, previous, executable, instr_ptr, localsplus, owner},
// code_object at 272 {size, filename, name, qualname, linetable, firstlineno, argcount,
// localsplus_names, localsplus_kinds, co_code_adaptive}.
constexpr size_t kCurrentFrame = 184, kPrevious = 232, kExecutable = 240, kInstrPtr = 248, kOwner = 264,
                 kFilename = 280, kName = 288, kQualname = 296, kLinetable = 304, kFirstlineno = 312,
                 kCodeAdaptive = 344;

}  // namespace

std::optional<FrameLayout> frame_table_layout(int minor) {
  if (minor < 8 || minor > 12) return std::nullopt;
  return table_entry(minor);
}

std::optional<FrameLayout> debug_offsets_frame_layout(std::span<const uint8_t> bytes, std::string* why) {
  if (bytes.size() < kDebugOffsetsFrameBytes) {
    *why = "its debug offsets end early";
    return std::nullopt;
  }
  FrameLayout l;
  l.minor = 13;
  l.tss_key = kTssKey313;
  l.tstate_frame = u32_at(bytes, kCurrentFrame);
  l.frame_back = u32_at(bytes, kPrevious);
  l.frame_code = u32_at(bytes, kExecutable);
  l.frame_instr = u32_at(bytes, kInstrPtr);
  l.frame_owner = u32_at(bytes, kOwner);
  l.frame_read = 72;
  CodeLayout& c = l.code;
  c.filename = u32_at(bytes, kFilename);
  c.name = u32_at(bytes, kName);
  c.qualname = u32_at(bytes, kQualname);
  c.linetable = u32_at(bytes, kLinetable);
  c.firstlineno = u32_at(bytes, kFirstlineno);
  c.code_adaptive = u32_at(bytes, kCodeAdaptive);
  c.format = LineTableFormat::Locations;
  c.ascii_header = 40;
  c.compact_header = 56;
  if (!l.tstate_frame || !l.frame_back || !l.frame_instr || !l.frame_owner || !c.filename || !c.name ||
      !c.linetable || !c.firstlineno || !c.code_adaptive) {
    *why = "its debug offsets leave the frame's or the code object's fields at 0";
    return std::nullopt;
  }
  uint32_t most = std::max({l.frame_back, l.frame_code, l.frame_instr, l.frame_owner});
  if ((most & ~7u) + 8 > l.frame_read) {  // each is read as the aligned word that holds it
    *why = "its frames are larger than seam reads";
    return std::nullopt;
  }
  return l;
}

void add_frames(plan::CpythonProcess& value, const FrameLayout& layout) {
  value.tss_key = layout.tss_key;
  value.tss_base = kGlibcTssBase;
  value.tstate_frame = layout.tstate_frame;
  value.cframe_frame = layout.cframe_frame;
  value.frame_back = layout.frame_back;
  value.frame_code = layout.frame_code;
  value.frame_instr = layout.frame_instr;
  value.frame_owner = layout.frame_owner;
  value.frame_read = layout.frame_read;
  value.instr_is_int = layout.instr_is_int ? 1 : 0;
  value.frame_entry = layout.frame_entry;
}

}  // namespace seam::runtime::python
