#pragma once
// Links BPF objects into one with libbpf's static linker (what `bpftool gen object` does): the
// parts of a parallel build (build_object.hpp) become the object a run loads. Maps and globals
// the parts define weak (SEAM_SHARED, seam_prelude.h) become one each; programs keep their
// sections and names.
#include <string>
#include <vector>

#include "compiler/diag/result.hpp"

namespace seam::build {

// Writes `output` from `inputs`, in their order. The error names the input libbpf refused and
// carries what libbpf said.
Result<void> link_bpf_objects(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace seam::build
