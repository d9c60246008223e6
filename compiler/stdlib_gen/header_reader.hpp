#pragma once
// Parses a C header with libclang (the C API) and collects its function declarations.
#include <string>
#include <vector>

#include "compiler/stdlib_gen/c_decls.hpp"

namespace seam::stdlib_gen {

struct HeaderRead {
  CHeader header;
  // libclang's errors (and fatal errors), one per entry, as "file:line:col: error: message".
  // When there are any, the header is incomplete and should not be used.
  std::vector<std::string> errors;
};

// `clang_args` are passed to the compiler as given (-I DIR, -D NAME=VALUE). The header is parsed
// as C11, with every comment attached to its declaration (not only doc comments).
HeaderRead read_header(const std::string& path, const std::vector<std::string>& clang_args);

}  // namespace seam::stdlib_gen
