#pragma once
// Which scope test each generated program makes (plan.hpp, Scope). Slot i < plan.scopes.size()
// is scope i; the last slot is the host-wide rules' (it tests only the operator's --cgroup).
// A program whose actions all serve one slot tests it first and returns at once outside it
// (every program of a one-file object); a program serving several (a bundle's merged files)
// tests each rule check and metric update on its own, and keeps its span and state bookkeeping
// for every process, since a rule of any slot may read it.
#include <set>

#include "compiler/codegen/generate.hpp"
#include "compiler/plan/sites.hpp"

namespace seam::codegen {

// plan.scopes.size() + 1.
int scope_slot_count(const plan::Program& p);
int rule_slot(const plan::Program& p, uint32_t rule_id);
int metric_slot(const plan::Program& p, int metric_update);
// Whether a slot's programs look the process up at all.
bool slot_tests(const plan::Program& p, const Options& options, int slot);
// The slots a site's actions serve.
std::set<int> site_slots(const plan::Program& p, const plan::Site& site);
// Whether the object tests scopes anywhere (it then includes seam_scope.h and the scope-follow programs).
bool scoped(const plan::Program& p, const Options& options);

}  // namespace seam::codegen
