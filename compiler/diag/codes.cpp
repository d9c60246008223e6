#include "compiler/diag/codes.hpp"

namespace seam::diag {

std::string_view code_id(Code c) {
  switch (c) {
#define SEAM_X(name, code, slug) \
  case Code::name:               \
    return code;
    SEAM_DIAGNOSTIC_CODES(SEAM_X)
#undef SEAM_X
  }
  return "E????";
}

std::string_view code_slug(Code c) {
  switch (c) {
#define SEAM_X(name, code, slug) \
  case Code::name:               \
    return slug;
    SEAM_DIAGNOSTIC_CODES(SEAM_X)
#undef SEAM_X
  }
  return "unknown";
}

}  // namespace seam::diag
