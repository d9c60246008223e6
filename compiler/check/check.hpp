#pragma once
// Name resolution and type/unit checking of a loaded Program. Fills every `resolved`, `type`
// and NameRef slot of the AST and appends diagnostics (docs/diagnostics.md lists them all).
// Conventions lowering relies on:
//  - RuleDecl::resolved_event, Correlation::resolved, MetricDecl::resolved_event,
//    StateTransition::resolved_event and AliasDecl::resolved point at the EventDecl, aliases followed.
//  - Alert::severity is always set on a checked rule (warning when no word was written).
//  - A state transition on a bare symbol gets the module's only library filled into probe.library.
//  - In route conditions, `severity` is a NameRef of kind Severity with an empty `builtin`; a
//    severity word (`warning`) is a NameRef of kind Severity whose `builtin` is the word.
//  - NameRefs inside `while` have kind State and type State; `and`/`or`/`not` over them are Bool.
//  - `{cuda.malloc.duration}` (the correlated event's duration) is kind OtherEvent with `event`
//    set, `field` null and `builtin` "duration"; its fields have `field` set.
//  - Span keys are NameRefs of kind EventField pointing at the span's own FieldDecl.
#include "compiler/check/program.hpp"

namespace seam::check {

// The documented limits (docs/language.md, "Limits"), E0008 past them.
inline constexpr size_t kMaxRulesPerFile = 1000;
inline constexpr size_t kMaxRulesPerEvent = 200;

void check(Program& program);

}  // namespace seam::check
