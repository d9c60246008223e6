#pragma once
// Where CPython keeps what python.gil_held reads, per minor version: offsets into _PyRuntime,
// the interpreter and the thread state. 3.8 to 3.12 from the table in cpython_layout.cpp (read
// off the DWARF of the pyenv builds; tests/unit/python_layout_test.cpp checks it against that
// DWARF); 3.13 from the _Py_DebugOffsets the interpreter carries at the start of _PyRuntime.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "compiler/plan/plan.hpp"

namespace seam::runtime::python {

struct GilLayout {
  int minor = 0;  // 3.<minor>
  // 0: the GIL is at _PyRuntime + locked/holder (3.8 to 3.11). Else the main interpreter's
  // pointer is at _PyRuntime + interp_ptr and the GIL at interp + locked/holder (3.12+).
  uint32_t interp_ptr = 0;
  uint32_t locked = 0;     // the GIL's `locked` (int)
  uint32_t holder = 0;     // the GIL's `last_holder` (PyThreadState *)
  uint32_t thread_id = 0;  // PyThreadState.thread_id
};

// The table's entry for CPython 3.<minor>; nullopt for a version it does not have.
std::optional<GilLayout> table_layout(int minor);

// The first bytes of _PyRuntime in 3.13 and later: "xdebugpy", then the version (PY_VERSION_HEX).
inline constexpr char kDebugCookie[] = "xdebugpy";
inline constexpr size_t kDebugOffsetsBytes = 224;  // through thread_state (3.13's layout)

// What the debug offsets say, or why they cannot be used (*why): not the cookie, a version
// whose _Py_DebugOffsets layout seam does not know, or a free-threaded build.
std::optional<GilLayout> debug_offsets_layout(std::span<const uint8_t> bytes, std::string* why);

// The map value for a process whose _PyRuntime is at `runtime`.
plan::CpythonProcess process_value(const GilLayout& layout, uint64_t runtime);

}  // namespace seam::runtime::python
