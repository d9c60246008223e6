#include "compiler/lower/task_storage.hpp"

#include <set>
#include <string>

namespace seam::lower {

namespace {

void retype(plan::Program& program, const std::string& map) {
  for (plan::Map& m : program.plan.maps)
    if (m.name == map) {
      m.type = plan::MapType::TaskStorage;
      m.max_entries = 0;  // the kernel requires 0: one value per thread
    }
}

}  // namespace

void use_task_storage(plan::Program& program) {
  std::set<int> keyed_otherwise;  // spans with a begin or end keyed by something else than the thread
  for (const plan::Site& site : program.sites)
    for (const plan::Action& a : site.actions)
      if ((a.kind == plan::ActionKind::SpanBegin || a.kind == plan::ActionKind::SpanEnd) &&
          a.key.kind != plan::ValueKind::Tid)
        keyed_otherwise.insert(a.index);
  std::set<std::string> scanned;
  for (const plan::Rule& r : program.plan.rules)
    if (!r.pending_map.empty()) scanned.insert(r.pending_map);
  for (size_t i = 0; i < program.spans.size(); ++i) {
    plan::Span& s = program.spans[i];
    if (keyed_otherwise.count(static_cast<int>(i)) || scanned.count(s.map)) continue;
    s.task_local = true;
    retype(program, s.map);
  }
  for (plan::State& s : program.states)
    if (!s.per_process && s.memory_reader < 0) {  // a state read from memory keeps its process map
      s.task_local = true;
      retype(program, s.map);
    }
  for (plan::Correlation& c : program.correlations) {
    c.task_local = true;
    retype(program, c.map);
  }
}

}  // namespace seam::lower
