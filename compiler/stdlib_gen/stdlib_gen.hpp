#pragma once
// `seam stdlib gen`: a seam module written from a C header's function declarations (libclang).
// docs/stdlib_gen.md describes the output and its limits.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compiler/diag/result.hpp"

namespace seam::stdlib_gen {

struct GenOptions {
  std::string header;
  std::string library_alias;    // cudart
  std::string library_pattern;  // libcudart.so*
  std::vector<std::string> function_globs;
  std::string module_name;                  // empty: the header's file name, as an identifier
  std::optional<std::string> strip_prefix;  // unset: the names' common lowercase prefix
  std::vector<std::string> clang_args;      // -I DIR, -D NAME
  // Each is defined in a second parse of the header; a matched function declared at the same place
  // under another name there (CUDA_API_PER_THREAD_DEFAULT_STREAM: cudaMemcpy -> cudaMemcpy_ptds)
  // becomes an alternative probe of its span.
  std::vector<std::string> variant_defines;
};

enum class GenStatus {
  Ok,
  BadInput,      // a missing header, a bad alias or module name (exit 2)
  HeaderErrors,  // libclang reported errors in the header (exit 1)
  NoMatch,       // no function matched the globs (exit 1)
};

struct GenResult {
  GenStatus status = GenStatus::Ok;
  std::vector<std::string> errors;  // file:line:col: error: ... for HeaderErrors
  std::string module_text;
  // The sidecar: {"enumName": {"0": "enumerator", ...}} for every enum a field uses; a value
  // several enumerators share keeps the first one's name.
  nlohmann::json enums = nlohmann::json::object();
};

GenResult generate(const GenOptions& options);

struct LibrarySpec {
  std::string alias;    // "cudart"
  std::string pattern;  // "libcudart.so*"
};

// "cudart=libcudart.so*" -> alias and pattern; an error (ErrorCode::InvalidInput) when it is not
// ALIAS=PATTERN with ALIAS a seam identifier (not a reserved word) and PATTERN non-empty.
Result<LibrarySpec> parse_library_spec(const std::string& spec);

}  // namespace seam::stdlib_gen
