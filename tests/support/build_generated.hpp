#pragma once
// Builds a compile's generated C with clang, as a run does but uncached: a codegen test that
// inspected the C also checks that it builds.
#include <filesystem>
#include <string>

#include "compiler/build/build_object.hpp"
#include "compiler/build/kernel_types.hpp"
#include "support/compile_text.hpp"

namespace seam::test {

// Whether this machine has what building needs: clang and the kernel's BTF.
inline bool can_build_generated() {
  return !build::find_clang().empty() && std::filesystem::exists(build::kVmlinuxBtfPath);
}

inline build::BuildResult build_generated(const plan::Program& lowered, const std::string& c_source) {
  build::BuildOptions options;
  options.kernel_types = lowered.kernel_types;
  options.source_name = codegen::kGeneratedFile;
  options.use_cache = false;
  return build::build_object(c_source, options);
}

}  // namespace seam::test
