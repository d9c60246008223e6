#pragma once
// A few named types' ids in the running kernel's BTF, found by walking the file mapped in place,
// without libbpf's parse. The feature probes need two ids (a tracepoint's btf_trace_* typedef and
// a function, to try a tp_btf and an fentry program), and the uprobe session's kfunc one
// (session_kfunc.hpp); a full parse of /sys/kernel/btf/vmlinux (about 5.5 MB read into two fresh
// buffers, every type indexed) cost a bundle's cold start about 8 ms of CPU for the features alone.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace seam::runtime {

// A name and a BTF kind (BTF_KIND_TYPEDEF, BTF_KIND_FUNC...).
using BtfName = std::pair<std::string, uint32_t>;

// The id of each wanted name that the BTF holds (the first of its kind); nullopt when the text is
// not BTF this walk understands (a kind it does not know), so the caller can parse it instead.
std::optional<std::map<BtfName, uint32_t>> find_btf_type_ids(std::string_view raw,
                                                             const std::vector<BtfName>& wanted);

// The same in /sys/kernel/btf/vmlinux, mapped read-only; nullopt when it cannot be mapped or walked.
std::optional<std::map<BtfName, uint32_t>> find_vmlinux_btf_type_ids(const std::vector<BtfName>& wanted);

// The running kernel's ids: the mapped walk above, or libbpf's parse where the file cannot be
// mapped (kernels before 6.16); nullopt when the kernel has no BTF. A name it lacks is absent.
std::optional<std::map<BtfName, uint32_t>> kernel_btf_type_ids(const std::vector<BtfName>& wanted);

}  // namespace seam::runtime
