#pragma once
// Many kernel types' ids from one walk of the kernel's BTF. A types header names some 30 types
// (kBaseKernelTypes and the program's own), and a name without "struct "/"union "/"enum " is
// tried as each of five kinds in turn: with libbpf's btf__find_by_name_kind, which walks every
// type on each call (126,000 in a 6.18 kernel's BTF), that was about 90 walks and 100 ms of CPU per
// header on a cold start, twice (the loader hook's header and the rules'). One walk that checks
// each type against the wanted names gives the same ids.
#include <string>
#include <vector>

#include "compiler/build/btf_types.hpp"

namespace seam::build {

// For each of `names` ("struct pt_regs", "pt_regs", "__u64", "enum bpf_map_type", "BPF_ANY"), the id
// btf__find_by_name_kind gives, or -1:
// - "struct X", "union X": the first struct (union) named X; "enum X": the first enum named X,
//   else the first enum64;
// - a bare name: the first struct of that name, else union, typedef, enum, enum64 (in that order
//   of kinds, whatever their ids);
// - a bare name starting with a capital letter that no type has: the first enum that declares it
//   as an enumerator (an anonymous enum, such as the one of BPF_ANY).
std::vector<int> find_kernel_types(const BtfTypes& types, const std::vector<std::string>& names);

}  // namespace seam::build
