#pragma once
// Per-thread maps in task-local storage (BPF_MAP_TYPE_TASK_STORAGE): the value hangs off the
// thread's task_struct, so a probe reads it without hashing or LRU bookkeeping, and it is freed
// with the thread (nothing leaks when a thread dies inside a span, which is why the hash
// fallback is an LRU). Only maps keyed by the current thread qualify; a span scanned from user
// space for `pending` keeps its hash map, since task storage cannot be iterated.
#include "compiler/plan/sites.hpp"

namespace seam::lower {

// Marks the qualifying spans, states and correlations task_local and retypes their maps.
void use_task_storage(plan::Program& program);

}  // namespace seam::lower
