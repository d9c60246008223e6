#pragma once
// Lowering: the checked AST becomes a probe plan (compiler/plan/): which probes to attach,
// which maps, which predicate each rule evaluates in the kernel, and which record it emits.
// Input must have passed the checker without errors: lowering trusts the resolved slots.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ast/ast.hpp"
#include "compiler/plan/sites.hpp"

namespace seam::lower {

struct Options {
  uint32_t target_pid = 0;     // --pid: only this process (0: all); plan::Plan::target_tgid
  uint64_t target_cgroup = 0;  // only this cgroup id, exactly (0: all); `seam run --cgroup` scopes instead
  uint32_t inflight_entries = 16384;  // per span map: threads that can be inside a span at once
  uint32_t state_entries = 16384;     // per state map
  uint32_t ustack_frames = 64;        // user stack depth kept in a record
  uint32_t kstack_frames = 32;
  // Bytes of the user stack copied beside `ustack` for unwinding with call-frame information
  // (a multiple of plan::kStackCopyChunk); 0: frame pointers only (docs/language.md, ustack).
  uint32_t ustack_copy_bytes = 8192;
  uint32_t pystack_frames = 64;  // Python frames kept in a record (`with pystack`, `with stack`)
  uint32_t ringbuf_bytes = 1u << 22;
  // Per-thread maps in task-local storage where the kernel allows it (runtime::task_storage_usable);
  // false: LRU hash maps keyed by thread id.
  bool task_storage = true;
  // `seam run --cgroup`: every program is scoped (codegen::Options::operator_scope), so each
  // needs the fork tracepoint's type for its scope-follow program.
  bool operator_scope = false;
  // Whether this kernel has tracepoint CATEGORY:NAME (`seam run` asks tracefs,
  // cli/kernel_probes.hpp); unset: assume it does. A rule that names its syscalls runs on their
  // own tracepoints only where every one of them exists (syscall_tracepoints.hpp).
  std::function<bool(const std::string& category, const std::string& name)> has_tracepoint;
  // Whether this kernel can load and attach programs of kind F (`seam run` asks the feature probe,
  // runtime/load/features.hpp); unset: not known here. syscalls.any and syscalls.enter run as raw
  // tracepoint programs (raw_syscall_tracepoints.hpp): where RawTracepoint is known, only the
  // program that works here is generated; where it is not, the raw tracepoint program carries the
  // perf tracepoint program as its fallback (plan::Attachment::fallback) and the loader chooses.
  std::function<bool(plan::Feature f)> has_feature;
  // Whether this kernel has uprobe sessions (`seam run` asks runtime/load/uprobe_session_probe.hpp,
  // whose probe may wait out a grace period: asked only when lowering gets there, so that it runs
  // beside reading and checking the rules): spans whose entry can tell that the call will not wait
  // become one session program that ends them at the entry when it will not (uprobe_session.cpp);
  // unset or false: entry and return probes.
  std::function<bool()> uprobe_session;
};

struct Input {
  std::vector<const ast::File*> modules;     // stdlib (declares libraries, events, states)
  std::vector<const ast::File*> rule_files;  // the rules to run
};

// Thrown by lower() for a checked expression it has no kernel form for (a checker and lowerer that
// disagree: a bug in seam). It names the rule and the place, and never lets the rule run with a
// condition it did not write (an unhandled test used to become `true`).
struct LowerError : std::logic_error {
  using std::logic_error::logic_error;
};

plan::Program lower(const Input& input, const Options& options = {});

// The ring buffer size: `requested` (a power of two), doubled until it holds kRingRecords of
// the largest record. Drops past that are still counted per rule (seam_drops).
inline constexpr uint32_t kRingRecords = 64;
uint32_t ring_bytes_for(const std::vector<plan::Record>& records, uint32_t requested);

}  // namespace seam::lower
