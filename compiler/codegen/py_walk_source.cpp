#include "compiler/codegen/py_walk_source.hpp"

namespace seam::codegen {

std::string py_walk_source() {
  // SEAM_PARTS: its map is defined weak, as a part's are, so that a program's copy (the inline
  // walk's) and this one become one at the link. No license: the program that links it has one.
  return "/* Python's frame walk, built once with seam (compiler/codegen/py_walk_source.hpp). */\n"
         "#define SEAM_PARTS 1\n"
         "#define SEAM_PART 0\n"
         "#include \"seam_prelude.h\"\n"
         "#include \"py_gil.h\"\n"
         "#define SEAM_PY_WALK_LINKAGE __hidden __noinline\n"
         "#include \"py_walk.h\"\n";
}

}  // namespace seam::codegen
