#include "runtime/load/task_storage_probe.hpp"

#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <unistd.h>

#include <cstring>

#include "runtime/load/feature_cache.hpp"

namespace seam::runtime {

namespace {

std::string verdict(const std::string& what, int r) {
  if (r == 1) return {};
  return what + (r == 0 ? ": not supported" : std::string(": probe failed: ") + std::strerror(-r));
}

TaskStorageSupport probe() {
  // bpf_get_current_task_btf hands the verifier a typed task pointer: it needs the kernel's BTF.
  if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
    return {false, "the kernel has no BTF (/sys/kernel/btf/vmlinux)"};
  std::string why =
      verdict("BPF_MAP_TYPE_TASK_STORAGE", libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, nullptr));
  // Every program type a per-thread map can be used from (BTF-typed tracing programs have had
  // both helpers since the map type exists; libbpf cannot probe those without a target).
  struct Kind {
    bpf_prog_type type;
    const char* name;
  };
  for (Kind k :
       {Kind{BPF_PROG_TYPE_KPROBE, "kprobe/uprobe"}, Kind{BPF_PROG_TYPE_TRACEPOINT, "tracepoint"},
        Kind{BPF_PROG_TYPE_RAW_TRACEPOINT, "raw_tracepoint"}, Kind{BPF_PROG_TYPE_PERF_EVENT, "perf_event"}}) {
    if (why.empty())
      why = verdict(std::string("bpf_task_storage_get in ") + k.name + " programs",
                    libbpf_probe_bpf_helper(k.type, BPF_FUNC_task_storage_get, nullptr));
    if (why.empty())
      why = verdict(std::string("bpf_get_current_task_btf in ") + k.name + " programs",
                    libbpf_probe_bpf_helper(k.type, BPF_FUNC_get_current_task_btf, nullptr));
  }
  return {why.empty(), why};
}

}  // namespace

// SEAM_NO_TASK_STORAGE: for tests, and for ruling the storage out when chasing a problem.
const TaskStorageSupport& task_storage_support() {
  static const TaskStorageSupport support =
      answer_once_per_boot("SEAM_NO_TASK_STORAGE", "task-storage", probe);
  return support;
}

}  // namespace seam::runtime
