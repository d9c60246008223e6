#pragma once
// What each in-flight map (span, state, `after` correlation) of a program holds, written into
// plan::Map::contents: the span or state it serves, what its key is, what each saved slot is
// (named, not by index into this set's arrays), and which probes write and read it. A reload
// keeps such a map (the new object uses the old one by fd, runtime/run/session_reload.cpp) only
// when the contents are the same, so a span begun under the old object ends under the new one.
#include "compiler/plan/plan.hpp"
#include "compiler/plan/sites.hpp"

namespace seam::lower {

void describe_map_contents(plan::Program& program);

}  // namespace seam::lower
