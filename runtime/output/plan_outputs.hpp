#pragma once
// The rule files' `output` and `route` declarations, as the plan carries them (plan::Output,
// plan::Route), become sinks: an output named by a route receives the alerts one of its routes
// selects; an output no route names receives every alert. seam run opens them beside --output.
#include <memory>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/decode/result.hpp"
#include "runtime/output/sink.hpp"

namespace seam::runtime {

// Whether a route's condition holds for the alert (its severity and its rule's name).
bool route_selects(const plan::RouteCondition& condition, const Alert& alert);

// One declared output, opened (a json file created, a webhook's queue started).
Result<std::unique_ptr<Sink>> make_sink(const plan::Output& output);

// Every output of the plan, each behind its routes when a route names it. The error names the
// output and where it is declared ("rules/out.seam:3: output ops: ...").
Result<std::vector<std::unique_ptr<Sink>>> open_outputs(const plan::Plan& plan);

}  // namespace seam::runtime
