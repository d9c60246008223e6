#pragma once
// Begin-time filters: a span's begin stores its start (a timestamp, saved values, a map entry)
// only when some rule or metric that reads the span could still match. Each reader's condition
// is split into its `and`-ed conjuncts; those known at the begin (the syscall id and arguments
// read at entry, constants, and for a span begun and ended on one thread its pid, tid, uid,
// comm, cgroup and identity tests) are tested there too. The begin stores when any reader's
// begin conjuncts all hold (a reader with none: always). Every reader still tests its whole
// condition at the end, so a rule matches exactly what it matched before; only spans no rule can
// match are never stored. Not moved to the begin: what is dearer than the store it saves
// (fd_is), and what is read where the span ends (duration, results, states, correlations, cpu,
// time). A filter on comm or uid sees them at the begin: a span across an execve or setuid that
// changes them is judged by the values it began with.
#include <vector>

#include "compiler/plan/sites.hpp"

namespace seam::lower {

// Sets Span::begin_when (or Span::never) of every span of `program`, and the attachments'
// span_begins text. `keyed[i]`: span i begins and ends on different threads (a keyed pair),
// where the ending thread's pid, tid, uid and comm are not the beginning one's.
void place_begin_filters(plan::Program& program, const std::vector<bool>& keyed);

// The conjuncts of `when` known at the begin of `span`, rewritten to the begin's values (a
// saved slot becomes the value it saved), and-ed in their order; True when there are none.
plan::Cond begin_part(const plan::Cond& when, const plan::Span& span, bool keyed);

}  // namespace seam::lower
