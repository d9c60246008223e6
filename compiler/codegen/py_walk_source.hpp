#pragma once
// Python's frame walk (bpf-templates/py_walk.h) as an object of its own: the same C for every
// program, so seam's build compiles it once (cli/prebuild/) and a program that takes a pystack
// links it (build::BuildOptions::link_with) instead of compiling it in its own clang. Where the
// build could not make it, the programs compile the walk inline, as py_stack.h says.
#include <string>

namespace seam::codegen {

// The file name the walk's source is built under (clang's messages, the object's line info).
inline constexpr const char* kPyWalkSourceName = "seam_py_walk.bpf.c";
// What a program's build is told when the prebuilt walk is linked into it (py_stack.h then only
// declares the walk), and the name the object has among the link's inputs.
inline constexpr const char* kPyWalkLinkedFlag = "-DSEAM_PY_WALK_LINKED";
inline constexpr const char* kPyWalkObjectName = "seam_py_walk";
// The kernel types its headers name (py_gil.h reads task_struct), for its kernel_types.h.
inline constexpr const char* kPyWalkKernelTypes[] = {"pt_regs", "task_struct"};

std::string py_walk_source();

}  // namespace seam::codegen
