#include "compiler/check/availability.hpp"

#include <map>

namespace seam::check {

std::string probe_text(const ast::ProbeSpec& p) {
  switch (p.kind) {
    case ast::ProbeKind::Tracepoint:
      return "tracepoint " + p.category + ":" + p.name;
    case ast::ProbeKind::RawTracepoint:
      return "raw_tracepoint " + p.symbol;
    case ast::ProbeKind::Kprobe:
      return "kprobe " + p.symbol;
    case ast::ProbeKind::Kretprobe:
      return "kretprobe " + p.symbol;
    case ast::ProbeKind::Fentry:
      return "fentry " + p.symbol;
    case ast::ProbeKind::Fexit:
      return "fexit " + p.symbol;
    case ast::ProbeKind::Perf:
      return "perf " + p.symbol;
    case ast::ProbeKind::Usdt:
      return "usdt " + p.library.name + ":" + p.category + ":" + p.name;
    default:
      return p.library.name + ":" + p.symbol;
  }
}

namespace {

// Drops the missing alternatives of one side of an event; "" when some are left, else why the
// last one is missing.
std::string prune(std::vector<ast::ProbeSpec>& probes, const ProbeAvailability& missing) {
  if (probes.empty()) return "";
  std::string why;
  std::erase_if(probes, [&](const ast::ProbeSpec& p) {
    std::optional<std::string> reason = missing(p);
    if (reason) why = probe_text(p) + ": " + *reason;
    return reason.has_value();
  });
  return probes.empty() ? why : "";
}

// The first metric an aggregate of `e` reads that is unavailable, or null.
const ast::MetricDecl* unavailable_metric(const ast::Expr& e) {
  if (const auto* call = std::get_if<ast::Call>(&e.node)) {
    for (const ast::ExprPtr& a : call->args)
      if (const auto* ref = a ? std::get_if<ast::NameRef>(&a->node) : nullptr;
          ref && ref->metric && !ref->metric->unavailable.empty())
        return ref->metric;
    return nullptr;
  }
  if (const auto* b = std::get_if<ast::Binary>(&e.node)) {
    if (const ast::MetricDecl* m = b->lhs ? unavailable_metric(*b->lhs) : nullptr) return m;
    return b->rhs ? unavailable_metric(*b->rhs) : nullptr;
  }
  if (const auto* u = std::get_if<ast::Unary>(&e.node))
    return u->operand ? unavailable_metric(*u->operand) : nullptr;
  return nullptr;
}

}  // namespace

size_t mark_unavailable(Program& program, const ProbeAvailability& missing) {
  if (!missing) return 0;
  std::map<const ast::EventDecl*, std::string> gone;  // event -> why
  for (std::vector<ast::File>* files : {&program.modules, &program.rule_files})
    for (ast::File& f : *files)
      for (ast::Decl& d : f.decls) {
        auto* e = std::get_if<ast::EventDecl>(&d);
        if (!e) continue;
        std::string why = prune(e->begin, missing);
        if (why.empty()) why = prune(e->end, missing);
        if (!why.empty()) gone[e] = why;
      }
  if (gone.empty()) return 0;
  auto why_of = [&](const ast::EventDecl* e) -> std::string {
    auto it = e ? gone.find(e) : gone.end();
    return it == gone.end() ? "" : it->second;
  };
  // A state is never set or cleared through a probe that is not there.
  for (ast::File& f : program.modules)
    for (ast::Decl& d : f.decls)
      if (auto* s = std::get_if<ast::StateDecl>(&d))
        std::erase_if(s->transitions,
                      [&](const ast::StateTransition& t) { return !why_of(t.resolved_event).empty(); });
  size_t marked = 0;
  for (ast::File& f : program.rule_files)
    for (ast::Decl& d : f.decls)
      if (auto* m = std::get_if<ast::MetricDecl>(&d); m && m->unavailable.empty()) {
        m->unavailable = why_of(m->resolved_event);
        if (m->unavailable.empty() && m->after) m->unavailable = why_of(m->after->resolved);
        if (!m->unavailable.empty()) ++marked;
      }
  for (ast::File& f : program.rule_files)
    for (ast::Decl& d : f.decls) {
      auto* r = std::get_if<ast::RuleDecl>(&d);
      if (!r || !r->unavailable.empty()) continue;
      r->unavailable = why_of(r->resolved_event);
      if (r->unavailable.empty() && r->after) r->unavailable = why_of(r->after->resolved);
      if (r->unavailable.empty() && r->when)  // `when p99(m) over 1m > ...` of a metric that is gone
        if (const ast::MetricDecl* m = unavailable_metric(*r->when))
          r->unavailable = "metric " + m->name.name + ": " + m->unavailable;
      if (!r->unavailable.empty()) ++marked;
    }
  return marked;
}

}  // namespace seam::check
