#pragma once
// Whether this kernel has uprobe sessions (6.13+: BPF_TRACE_UPROBE_SESSION, one program run at a
// function's entry and, unless the entry returns non-zero, at its return). Asked before code
// generation, since the choice decides the C (compiler/lower/uprobe_session.cpp): without them,
// spans keep their entry and return probes.
#include "runtime/load/feature_cache.hpp"

namespace seam::runtime {

using UprobeSessionSupport = ProbeAnswer;

// Tries it once per process: a tiny program loaded with the session's attach type and linked to
// a file of our own that nobody maps; or reads the per-boot cache (feature_cache.hpp).
// SEAM_NO_UPROBE_SESSION=1 says no (tests of the fallback, and for ruling sessions out).
const UprobeSessionSupport& uprobe_session_support();

}  // namespace seam::runtime
