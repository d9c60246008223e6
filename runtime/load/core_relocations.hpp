#pragma once
// Whether a BPF object carries CO-RE relocations (its .BTF.ext section's core_relo part): libbpf
// then parses the kernel's BTF (/sys/kernel/btf/vmlinux, 5.5 MB here, about 7 MB once parsed) for
// that load alone and frees it after. Units load in parallel at start, so two such parses at once
// were most of the start's RSS peak (docs/BENCHMARK.md, stop 20); loads that need one take turns.
#include <cstdint>
#include <mutex>
#include <span>

namespace seam::runtime {

bool has_core_relocations(std::span<const uint8_t> object);

// Held around bpf_object__load of an object with CO-RE relocations: one kernel BTF parse at a time.
std::mutex& kernel_btf_load_mutex();

}  // namespace seam::runtime
