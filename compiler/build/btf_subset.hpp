#pragma once
// A small BTF holding what dumping some kernel types as C needs, taken from the kernel's BTF,
// so that libbpf's btf_dump writes the same text for them as it would from the whole BTF, without
// parsing the whole BTF first (btf_types.hpp: 8.5 ms of a cold start, then 1.8 ms for btf_dump's
// state over all 126,000 types).
//
// What btf_dump needs of a type follows its ordering rule (libbpf's btf_dump_order_type): a type
// reached without a pointer on the way is defined in full, so all it refers to is needed; a
// named struct or union reached only through pointers is never defined, only named
// (`struct file;` before `struct file *f`). Such a struct is kept as a struct of the same name
// and size with no members. An array's element is needed in full, even through a pointer, as in
// btf_dump.
#include <memory>
#include <vector>

#include "compiler/build/btf_types.hpp"
#include "compiler/diag/result.hpp"

struct btf;

namespace seam::build {

struct FreeBtf {
  void operator()(btf* b) const;
};

struct BtfSubset {
  std::unique_ptr<btf, FreeBtf> types;  // libbpf's parse of the subset
  std::vector<int> roots;               // the subset's id of each root, in order
  int kept = 0, named_only = 0;         // types copied; of them, structs kept without members
};

// The subset of `from` that dumping the types `roots` (ids in `from`) needs.
Result<BtfSubset> btf_subset(const BtfTypes& from, const std::vector<int>& roots);

}  // namespace seam::build
