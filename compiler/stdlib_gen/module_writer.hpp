#pragma once
// The text of a generated module: a header comment, `module`, `library`, one comment block per
// enum the fields use, then one span per function (or a comment saying why it was skipped).
#include <string>
#include <vector>

#include "compiler/stdlib_gen/c_decls.hpp"
#include "compiler/stdlib_gen/seam_fields.hpp"

namespace seam::stdlib_gen {

struct GeneratedSpan {
  std::string function;                   // cudaMemcpyAsync
  std::vector<std::string> alternatives;  // other symbols of the same call: cudaMemcpyAsync_ptsz
  std::string span_name;                  // memcpy_async
  std::string doc;                        // one paragraph; wrapped when written
  SeamFields fields;
  std::string skip_reason;  // non-empty: written as "# skipped FUNCTION: REASON" instead
};

struct ModuleParts {
  std::string module_name;
  std::string source;  // "fake_runtime.h (functions fake*)", for the header comment
  std::string library_alias;
  std::string library_pattern;
  std::vector<CEnum> enums;
  std::vector<GeneratedSpan> spans;
};

std::string write_module(const ModuleParts& parts);

}  // namespace seam::stdlib_gen
