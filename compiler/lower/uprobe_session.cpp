// Spans whose entry can tell that the call will not wait (Options::uprobe_session): the entry
// and the return of the function become one uprobe session program (ELF section
// "uprobe.session", kernel 6.13+: the loader loads and links it as one, runtime/load/). At the entry it reads
// the lock from the process's memory; when the lock is free the call will not wait, so the span ends there
// with duration 0 (every call still counts in the span's histograms and counts) and the program returns 1:
// the kernel then runs nothing at the return and does not hijack the return address. When the lock is taken
// the span begins as before and the return measures the wait.
//
// The function and the lock come from the table below: take_gil, and the `cpython_gil` reader of
// its module's GIL state. A race it cannot see: the GIL read free at the entry but taken by
// another thread before this one gets it is recorded as no wait (duration 0). And the GIL read is
// the main interpreter's (as python.gil_held reads it): a 3.12+ subinterpreter with a GIL of its
// own that waits while the main GIL is free is recorded as no wait too.
//
// A span qualifies only where the early end is exact for what reads it: a call span (entry and
// return of the same function) not keyed, whose return carries nothing but its end (the entry may
// also count calls: that runs for every call, before the test), and whose end reads neither the
// return value nor a stack (a rule or metric testing
// `duration > X` sees 0 for a call that did not wait, as it would have seen a few hundred ns).
#include <algorithm>
#include <string>

#include "compiler/lower/lowerer.hpp"

namespace seam::lower {

namespace {

// Functions that take a lock the entry can read free, and the state reader that reads it.
struct EarlyEnd {
  const char* symbol;
  const char* reader;
};
constexpr EarlyEnd kEarlyEnds[] = {{"take_gil", "cpython_gil"}};

bool reads_return(const plan::Value& v) {
  return v.kind == plan::ValueKind::Ret || std::any_of(v.operands.begin(), v.operands.end(),
                                                       [](const plan::Value& o) { return reads_return(o); });
}

bool reads_return(const plan::Cond& c) {
  return reads_return(c.lhs) || reads_return(c.rhs) ||
         std::any_of(c.kids.begin(), c.kids.end(), [](const plan::Cond& k) { return reads_return(k); });
}

bool is_stack(plan::FieldType t) {
  return t == plan::FieldType::UStack || t == plan::FieldType::KStack || t == plan::FieldType::UStackCopy ||
         t == plan::FieldType::PyStack;
}

// What the span's end runs is as right at the entry (with duration 0) as at the return.
bool end_is_exact_at_entry(const plan::Program& p, const plan::Action& end) {
  for (const plan::RuleCheck& r : end.rules) {
    if (reads_return(r.when) || r.ustack_from_saved_ip || r.thread_slot >= 0) return false;
    for (const plan::RecordFill& f : r.fills)
      if (is_stack(f.field.type) || reads_return(f.source)) return false;
  }
  for (int m : end.metrics) {
    const plan::MetricUpdate& u = p.metric_updates.at(static_cast<size_t>(m));
    if (u.retire >= 0 || reads_return(u.when) || reads_return(u.value)) return false;
    if (std::any_of(u.labels.begin(), u.labels.end(), [](const plan::Value& l) { return reads_return(l); }))
      return false;
  }
  return true;
}

// The cpython_gil-style state of `module` whose reader is `reader` and reads `library`.
const ast::StateDecl* reader_state(const std::vector<const ast::File*>& modules, const std::string& module,
                                   const std::string& reader, const std::string& library) {
  for (const ast::File* f : modules)
    for (const ast::Decl& d : f->decls)
      if (const auto* s = std::get_if<ast::StateDecl>(&d))
        if (s->module == module && s->reader.name == reader && s->reader_library.name == library) return s;
  return nullptr;
}

}  // namespace

void Lowerer::use_uprobe_sessions() {
  std::vector<int> removed;  // return sites now served by their entry's session program
  for (const auto& [key, es] : events_) {
    const ast::EventDecl& event = *key.first;
    if (!es.is_span || !es.is_call || es.keyed || es.begin.size() != 1 || es.end.size() != 1) continue;
    if (event.begin.size() != 1 || event.begin[0].library_is_path) continue;
    const EarlyEnd* early = nullptr;
    for (const EarlyEnd& e : kEarlyEnds)
      if (event.begin[0].symbol == e.symbol) early = &e;
    if (!early) continue;
    const ast::StateDecl* state =
        reader_state(input_.modules, event.module, early->reader, event.begin[0].library.name);
    if (!state) continue;
    plan::Site& begin = program.sites[static_cast<size_t>(es.begin[0])];
    plan::Site& end = program.sites[static_cast<size_t>(es.end[0])];
    plan::Attachment& entry = program.plan.attachments[static_cast<size_t>(begin.attachment)];
    const plan::Attachment& ret = program.plan.attachments[static_cast<size_t>(end.attachment)];
    const plan::Span& span = program.spans[static_cast<size_t>(es.span)];
    if (span.never || span.thread_slot >= 0 || begin.session_span >= 0 || !entry.fallback.empty()) continue;
    if (entry.kind != plan::AttachKind::Uprobe || ret.kind != plan::AttachKind::Uretprobe) continue;
    // The entry may do more (a count at the call's entry): it runs for every call, before the test.
    auto begins = std::count_if(begin.actions.begin(), begin.actions.end(),
                                [&](const plan::Action& a) { return a.kind == plan::ActionKind::SpanBegin; });
    if (begins != 1 || begin.actions.back().kind != plan::ActionKind::SpanBegin ||
        begin.actions.back().index != es.span || end.actions.size() != 1 ||
        end.actions[0].kind != plan::ActionKind::SpanEnd || !end_is_exact_at_entry(program, end.actions[0]))
      continue;
    int reader = program.states[static_cast<size_t>(state_index(*state))].memory_reader;
    // state_index may have grown program.sites' neighbours (maps, states), never the sites.
    begin.early_end_map = program.plan.memory_readers.at(static_cast<size_t>(reader)).map;
    begin.session_span = es.span;
    begin.actions.push_back(end.actions[0]);
    begin.section = plan::kUprobeSessionSection;
    for (uint32_t r : ret.rules)
      if (std::find(entry.rules.begin(), entry.rules.end(), r) == entry.rules.end()) entry.rules.push_back(r);
    for (std::string& b : entry.span_begins)
      b += std::string(" (uprobe session: ends at the entry when ") + early->symbol + " will not wait)";
    removed.push_back(es.end[0]);
  }
  // Remove the return sites and their attachments, last index first.
  std::sort(removed.rbegin(), removed.rend());
  for (int s : removed) {
    int a = program.sites[static_cast<size_t>(s)].attachment;
    program.sites.erase(program.sites.begin() + s);
    program.plan.attachments.erase(program.plan.attachments.begin() + a);
    for (plan::Site& site : program.sites)
      if (site.attachment > a) --site.attachment;
  }
}

}  // namespace seam::lower
