#pragma once
// libbpf's bpf_helper_defs.h declares all ~210 BPF helpers (170 KB); clang parses every one for
// each part of a build (about 3 ms a clang here). A program's build writes only the declarations
// of helpers named in its own C or in the headers it may include: every name is a literal
// `bpf_...` identifier in one of those texts, so a name that none of them holds cannot be used.
#include <span>
#include <string>
#include <string_view>

namespace seam::build {

// `defs` (bpf_helper_defs.h's text) without the doc comments and without the declarations of
// helpers that no text in `uses` names. Kept whole where a line does not look like libbpf's
// generator writes it (a `static ... (*bpf_name)(...) = (void *) N;` line): a libbpf of another
// shape costs time, never a declaration.
std::string helper_defs_used_by(std::string_view defs, std::span<const std::string_view> uses);

}  // namespace seam::build
