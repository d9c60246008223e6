#pragma once
// Whether an interpreter file is a free-threaded CPython build (PEP 703, `python3.13t`), told
// from the file itself before any of its memory is read: its name carries the free-threaded ABI
// suffix `t` (libpython3.13t.so.1.0, python3.13t), or it exports a function that only builds
// with Py_GIL_DISABLED define (biased reference counting's _Py_MergeZeroLocalRefcount and
// _Py_DecRefShared). Such a build has no GIL and lays its objects out differently, so seam reads
// neither its GIL nor its frames (3.13's debug offsets say so too: their free_threaded field).
#include <string>
#include <string_view>

namespace seam::runtime::python {

// The file name has the `t` ABI suffix after its version (`td`: a debug build of one):
// "libpython3.13t.so.1.0", "python3.13t".
bool free_threaded_name(std::string_view path);

// A symbol only a free-threaded (Py_GIL_DISABLED) build defines.
bool free_threaded_symbol(std::string_view name);

// What says that the file is a free-threaded build, for a notice; "" when nothing does.
std::string free_threaded_sign(std::string_view path, std::string_view marker_symbol);

}  // namespace seam::runtime::python
