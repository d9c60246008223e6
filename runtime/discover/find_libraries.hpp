#pragma once
// One-shot search for the files a plan's uprobes attach to.
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/discover/library_file.hpp"

namespace seam::runtime::discover {

// Matches `patterns` against every process's executable file mappings (opened through
// /proc/PID/root, so containers and chroots count) and executables, and, when the scope says
// so, against the ld.so cache and the standard library folders. One LibraryFile per inode.
std::vector<LibraryFile> find_libraries(const std::vector<plan::LibraryPattern>& patterns,
                                        const Scope& scope);

}  // namespace seam::runtime::discover
