#pragma once
// kernel_types.h for a generated program: only the kernel types it names (and what those
// depend on), dumped from the running kernel's BTF, instead of a whole vmlinux.h.
#include <string>
#include <vector>

#include "compiler/build/btf_types.hpp"
#include "compiler/diag/result.hpp"

namespace seam::build {

// Always emitted: struct pt_regs (uprobe context), fixed-width integer typedefs and the BPF enums the helpers
// and seam_record.h use (bpf_map_type, BPF_ANY, BPF_RB_*, BPF_F_*).
// (Plain C strings: a global std::vector would allocate, and could throw, before main.)
extern const char* const kBaseKernelTypes[];

inline constexpr const char* kVmlinuxBtfPath = "/sys/kernel/btf/vmlinux";

// The header text for `type_names` ("pt_regs", "struct task_struct", "__u64", ...), wrapped in
// the preserve_access_index pragma. An error when the BTF cannot be loaded or a name is not a
// kernel type.
Result<std::string> kernel_types_header(const std::vector<std::string>& type_names);

// What a types header dumps, found in `types`: the ids of its types (kBaseKernelTypes that the
// kernel has, then `type_names`), the #defines that give an event of a class its class's struct,
// and the structs written from per-syscall tracepoints' format files. An error names a type the
// kernel does not have.
struct HeaderRoots {
  std::vector<int> ids;
  std::string class_names, own_structs;
};
Result<HeaderRoots> header_roots(const BtfTypes& types, const std::vector<std::string>& type_names);

// The header of `roots`, dumped with libbpf's btf_dump from `b`, whose ids they are.
Result<std::string> dump_header(const btf* b, const HeaderRoots& roots);

// Every type in the kernel's BTF: the equivalent of bpftool's vmlinux.h (for comparison).
Result<std::string> full_kernel_types_header();

// The identity of the running kernel's types: its build string (/proc/version) and the size of
// /sys/kernel/btf/vmlinux, read once per process. Empty when the BTF file is absent.
const std::string& kernel_btf_identity();

}  // namespace seam::build
