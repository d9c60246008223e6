#pragma once
// The line of an instruction from a code object's line table, in each of CPython's formats
// (LineTableFormat): what PyCode_Addr2Line computes in the interpreter, done on bytes read
// from another process. -1 where the table says the instruction has no line.
#include <cstdint>
#include <span>

#include "runtime/python/frame_layout.hpp"

namespace seam::runtime::python {

// `byte_offset`: the instruction's offset in bytes from the first code unit (what the
// interpreter passes PyCode_Addr2Line: f_lasti in 3.8/3.9, 2 * f_lasti in 3.10, 2 * the code
// unit index in 3.11+). A negative offset (a frame not started) is the first line.
int line_for_offset(LineTableFormat format, std::span<const uint8_t> table, int first_line,
                    int64_t byte_offset);

}  // namespace seam::runtime::python
