#pragma once
// What `seam run` asks before it compiles a rule unit: does this kernel have the probe? A
// tracepoint is looked up in tracefs (events/CATEGORY/NAME); a missing one would leave the whole
// object unbuildable (its struct is not in the kernel's BTF), so the rules that need it are left
// out instead (compiler/check/availability.hpp). Other kinds are decided at load, per program.
#include <optional>
#include <string>

#include "compiler/ast/ast.hpp"

namespace seam::cli {

// Why `probe` cannot attach here, or nullopt (present, or not known before loading).
std::optional<std::string> missing_on_this_kernel(const ast::ProbeSpec& probe);

// Whether this kernel has tracepoint CATEGORY:NAME (true when it cannot tell): which syscalls'
// own tracepoints a rule that names its syscalls can use (lower::Options::has_tracepoint).
bool has_tracepoint(const std::string& category, const std::string& name);

}  // namespace seam::cli
