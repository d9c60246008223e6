#include "runtime/python/cpython_layout.hpp"

#include <cstring>

namespace seam::runtime::python {

namespace {

// Read off the DWARF of the pyenv builds 3.8.18, 3.9.18, 3.10.13, 3.11.7 and 3.12.1 (Debian's
// static python3.11 has 3.11.7's layout). 3.8 to 3.11: _PyRuntime.ceval.gil.{locked,last_holder};
// 3.12: _PyRuntime.interpreters.main, then interp->_gil.{locked,last_holder}.
constexpr GilLayout kTable[] = {
    {8, 0, 584 + 568 + 16, 584 + 568 + 8, 176}, {9, 0, 344 + 8 + 16, 344 + 8 + 8, 176},
    {10, 0, 344 + 8 + 16, 344 + 8 + 8, 176},    {11, 0, 352 + 8 + 16, 352 + 8 + 8, 152},
    {12, 48, 1040 + 16, 1040 + 8, 136},
};

uint64_t u64_at(std::span<const uint8_t> bytes, size_t offset) {
  uint64_t v = 0;
  std::memcpy(&v, bytes.data() + offset, sizeof(v));
  return v;
}

// 3.13's _Py_DebugOffsets (Include/internal/pycore_runtime.h): cookie, version, free_threaded,
// runtime_state {size, finalizing, interpreters_head}, interpreter_state {size, id, next,
// threads_head, gc, imports_modules, sysdict, builtins, ceval_gil, gil_runtime_state,
// gil_runtime_state_enabled, gil_runtime_state_locked, gil_runtime_state_holder},
// thread_state {size, prev, next, interp, current_frame, thread_id, ...}.
constexpr size_t kVersion = 8, kFreeThreaded = 16, kInterpretersHead = 40, kGilLocked = 136, kGilHolder = 144,
                 kThreadId = 192;

}  // namespace

std::optional<GilLayout> table_layout(int minor) {
  for (const GilLayout& l : kTable)
    if (l.minor == minor) return l;
  return std::nullopt;
}

std::optional<GilLayout> debug_offsets_layout(std::span<const uint8_t> bytes, std::string* why) {
  if (bytes.size() < kDebugOffsetsBytes || std::memcmp(bytes.data(), kDebugCookie, 8) != 0) {
    *why = "its _PyRuntime does not start with the debug offsets' cookie \"xdebugpy\"";
    return std::nullopt;
  }
  // free_threaded keeps its place after the version in 3.14's debug offsets too: a free-threaded
  // build of any version is named as one.
  if (u64_at(bytes, kFreeThreaded) != 0) {
    *why = "it is a free-threaded build (no GIL to hold)";
    return std::nullopt;
  }
  uint64_t version = u64_at(bytes, kVersion);
  int major = static_cast<int>((version >> 24) & 0xff), minor = static_cast<int>((version >> 16) & 0xff);
  if (major != 3 || minor != 13) {
    *why = "its debug offsets are those of CPython " + std::to_string(major) + "." + std::to_string(minor) +
           ", whose layout seam does not know (it reads 3.13's)";
    return std::nullopt;
  }
  GilLayout l;
  l.minor = minor;
  l.interp_ptr = static_cast<uint32_t>(u64_at(bytes, kInterpretersHead));
  l.locked = static_cast<uint32_t>(u64_at(bytes, kGilLocked));
  l.holder = static_cast<uint32_t>(u64_at(bytes, kGilHolder));
  l.thread_id = static_cast<uint32_t>(u64_at(bytes, kThreadId));
  if (!l.interp_ptr || !l.locked || !l.holder || !l.thread_id) {
    *why = "its debug offsets leave the GIL's fields at 0";
    return std::nullopt;
  }
  return l;
}

plan::CpythonProcess process_value(const GilLayout& layout, uint64_t runtime) {
  plan::CpythonProcess v;
  v.runtime = runtime;
  v.interp_ptr = layout.interp_ptr;
  v.locked = layout.locked;
  v.holder = layout.holder;
  v.thread_id = layout.thread_id;
  return v;
}

}  // namespace seam::runtime::python
