// seam-prebuild WHAT OUT: builds one of seam's own BPF objects at seam's build time
// (CMakeLists.txt embeds it), so that a cold `seam run` compiles less:
//   hook        the dynamic loader hook: a cold start runs one clang, for its rules, instead of two;
//   py_walk, stack_copy, record, py_gil
//               functions that every program calling them links instead of compiling
//               (compiler/codegen/prebuilt_bpf.hpp).
// They read only struct pt_regs (the x86-64 ABI's), task_struct's fs base through BTF, and the
// kernel's uapi enums, so an object built against the build machine's BTF loads on any kernel
// seam supports. Where one cannot be built here (no clang, no kernel BTF), OUT is left empty and
// seam does without it: it builds the hook at start, and compiles the functions inline.
#include <fstream>
#include <iostream>
#include <string_view>

#include "compiler/build/build_object.hpp"
#include "compiler/codegen/loader_hook_source.hpp"
#include "compiler/codegen/prebuilt_bpf.hpp"

namespace {

seam::build::BuildResult build(std::string_view what) {
  seam::build::BuildOptions options;
  options.use_cache = false;
  if (what == "hook") {
    options.source_name = seam::codegen::kLoaderHookSourceName;
    return seam::build::build_object(seam::codegen::loader_hook_source(), options);
  }
  const seam::codegen::PrebuiltBpf& p = *seam::codegen::find_prebuilt_bpf(what);
  options.source_name = seam::codegen::prebuilt_bpf_source_name(p);
  options.kernel_types = p.kernel_types;
  return seam::build::build_object(seam::codegen::prebuilt_bpf_source(p), options);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::string_view(argv[1]) != "hook" && !seam::codegen::find_prebuilt_bpf(argv[1]))) {
    std::cerr << "usage: seam-prebuild hook|py_walk|stack_copy|record|py_gil OUT\n";
    return 2;
  }
  seam::build::BuildResult built = build(argv[1]);
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  if (!built.object) {
    std::cerr << "seam-prebuild: no prebuilt " << argv[1]
              << ", seam does without it: " << built.object.error() << "\n"
              << built.clang_stderr;
  } else {
    out.write(reinterpret_cast<const char*>(built.object->data()),
              static_cast<std::streamsize>(built.object->size()));
  }
  out.close();
  if (!out) {
    std::cerr << "seam-prebuild: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
