#pragma once
// Whether generated programs can keep per-thread values in task-local storage
// (compiler/lower/task_storage.hpp): the map type, and the two helpers, allowed in the uprobe
// and kprobe programs seam loads. Asked before code generation, since the choice decides the C.
#include "runtime/load/feature_cache.hpp"

namespace seam::runtime {

using TaskStorageSupport = ProbeAnswer;

// Probes once per process, or reads the per-boot cache (feature_cache.hpp). SEAM_NO_TASK_STORAGE=1
// says no.
const TaskStorageSupport& task_storage_support();

}  // namespace seam::runtime
