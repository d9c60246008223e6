#pragma once
// Connects the output pipeline's PyStackNamer to the frame namer: a PyStack field's bytes
// become Python frames (StackFrame::python), innermost first, and the walk's status a marker.
#include <memory>

#include "runtime/output/alert.hpp"
#include "runtime/python/frame_namer.hpp"

namespace seam::runtime::python {

PyStackNamer py_stack_namer(const std::shared_ptr<FrameNamer>& namer);

// "server" for "/srv/app/server.py": what a Python frame's module shows.
std::string module_of(const std::string& file);

}  // namespace seam::runtime::python
