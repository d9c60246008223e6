// seam-prebuild-hook OUT: builds the dynamic loader hook's BPF object at seam's build time
// (CMakeLists.txt embeds it), so that a cold `seam run` runs one clang, for its rules, instead
// of two. The hook reads only struct pt_regs (the x86-64 ABI's) and the kernel's uapi enums, so
// an object built against the build machine's BTF loads on any kernel seam supports. Where it
// cannot be built here (no clang, no kernel BTF), OUT is left empty and seam builds the hook at
// start, as it did before.
#include <fstream>
#include <iostream>

#include "compiler/build/build_object.hpp"
#include "compiler/codegen/loader_hook_source.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: seam-prebuild-hook OUT\n";
    return 2;
  }
  seam::build::BuildOptions options;
  options.source_name = seam::codegen::kLoaderHookSourceName;
  options.use_cache = false;
  seam::build::BuildResult built = seam::build::build_object(seam::codegen::loader_hook_source(), options);
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  if (!built.object) {
    std::cerr << "seam-prebuild-hook: the loader hook is built at start instead: " << built.object.error()
              << "\n"
              << built.clang_stderr;
  } else {
    out.write(reinterpret_cast<const char*>(built.object->data()),
              static_cast<std::streamsize>(built.object->size()));
  }
  out.close();
  if (!out) {
    std::cerr << "seam-prebuild-hook: cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}
