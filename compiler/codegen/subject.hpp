#pragma once
// Whose event an action is. Most probes fire in the task they are about, so seam's self-filter
// (its own process is never reported) and --pid test the current task. A scheduler tracepoint
// names other tasks by thread id: sched_switch runs in the task leaving the CPU and names the one
// coming in (next_pid); sched_waking runs in the waker and names the woken (pid). A span keyed by
// such a field is about that thread, so its begin is tested on the keyed thread, and its end is
// not tested again (its begin was: an end finds no span that was filtered out at its begin).
// The generated helpers are in bpf-templates/seam_subject.c.tmpl.
#include "compiler/plan/sites.hpp"

namespace seam::codegen {

enum class Subject {
  Current,  // the current task: the site's filters as they are
  Keyed,    // a span begin about the thread its key names: seam_subject_ok(key, ...)
  Begun,    // a span end about the thread its key names: decided at the begin
};

// A tracepoint field naming a thread by its kernel pid: `pid` or `<something>_pid`.
bool names_a_thread(const plan::Value& key);

Subject subject_of(const plan::Action& a);

}  // namespace seam::codegen
