#include "compiler/codegen/prebuilt_bpf.hpp"

namespace seam::codegen {

const std::vector<PrebuiltBpf>& prebuilt_bpf() {
  static const std::vector<PrebuiltBpf> all = {
      {kPyWalk, "-DSEAM_PY_WALK_LINKED", {"py_gil.h", "py_walk.h"}, {"pt_regs", "task_struct"}},
      {kStackCopy, "-DSEAM_STACK_COPY_LINKED", {"stack_copy.h"}, {"pt_regs"}},
      {kRecord, "-DSEAM_RECORD_LINKED", {}, {}},  // seam_record.h comes with the prelude
      {kPyGil, "-DSEAM_PY_GIL_LINKED", {"py_gil.h"}, {"task_struct"}},
  };
  return all;
}

const PrebuiltBpf* find_prebuilt_bpf(std::string_view name) {
  for (const PrebuiltBpf& p : prebuilt_bpf())
    if (p.name == name) return &p;
  return nullptr;
}

std::string prebuilt_bpf_source(const PrebuiltBpf& p) {
  // SEAM_PARTS: its maps and globals are defined weak, as a part's are, so that the program's
  // copies and these become one at the link. SEAM_PREBUILT_LINKAGE before the prelude, which
  // otherwise makes it inline; the others' functions only declared, as a program that links
  // them has them, so that each is defined in its own object alone. No license: the program
  // that links it has one.
  std::string text =
      "/* seam's " + p.name + ", built once with seam (compiler/codegen/prebuilt_bpf.hpp). */\n";
  for (const PrebuiltBpf& other : prebuilt_bpf())
    if (other.name != p.name) text += "#define " + other.linked_flag.substr(2) + "\n";
  text +=
      "#define SEAM_PARTS 1\n#define SEAM_PART 0\n"
      "#define SEAM_PREBUILT_LINKAGE __hidden __noinline\n#include \"seam_prelude.h\"\n";
  for (const std::string& h : p.headers) text += "#include \"" + h + "\"\n";
  return text;
}

std::string prebuilt_bpf_source_name(const PrebuiltBpf& p) {
  return "seam_" + p.name + ".bpf.c";
}

}  // namespace seam::codegen
