#pragma once
// Seam names from C names: cudaMemcpyAsync -> memcpy_async, devPtr -> dev_ptr.
#include <string>
#include <vector>

namespace seam::stdlib_gen {

// Words split at case changes, joined with '_', lowercase. A digit run followed by one capital
// is one word (Memcpy2DAsync -> memcpy_2d_async); other digits stay with the word before (_v2).
std::string snake_case(const std::string& name);

// The prefix the names share that is a run of lowercase letters ending at a word boundary in each
// name (cudaMemcpy, cudaMemcpyAsync -> "cuda"); empty when there is none or it would leave nothing.
std::string common_lowercase_prefix(const std::vector<std::string>& names);

// A seam identifier for `name`: characters other than letters, digits and '_' become '_', a
// leading digit gets '_' before it, and a reserved word gets '_' after it (state -> state_).
std::string seam_identifier(const std::string& name);

bool is_seam_reserved(const std::string& word);

// fnmatch(3)-style glob: * ? [...].
bool glob_matches(const std::string& glob, const std::string& name);

}  // namespace seam::stdlib_gen
