// An `after` event that begins a keyed span: `after usdt.request_start` fires on the probe that
// begins `usdt.request` (keyed by the request id, ended on any thread). A thread that began a
// request remembers its id, but the request may end on another thread; what happens on the first
// thread afterwards belongs to no request. So an `after` such an event also needs the span still
// in flight for the id it left (its in-flight map has the key), and a metric `by` that id alone
// keeps each id's series only while its span is in flight: at the span's end the series' count
// (or sum) is observed into the histogram `<metric>_ended` and the series is deleted.
#include "compiler/lower/lowerer.hpp"
#include "compiler/lower/map_names.hpp"

namespace seam::lower {

namespace {

bool same_probe(const ast::ProbeSpec& a, const ast::ProbeSpec& b) {
  return a.kind == b.kind && a.library.name == b.library.name && a.library_is_path == b.library_is_path &&
         a.symbol == b.symbol && a.offset == b.offset && a.category == b.category && a.name == b.name;
}

const ast::FieldDecl* field_named(const ast::EventDecl& event, const std::string& name) {
  for (const ast::FieldDecl& f : event.fields)
    if (f.name.name == name) return &f;
  return nullptr;
}

}  // namespace

SpanKeyedBy Lowerer::span_begun_by(const ast::EventDecl& after) {
  if (after.is_span) return {};
  for (const ast::File* file : input_.modules)
    for (const ast::Decl& d : file->decls) {
      const auto* span = std::get_if<ast::EventDecl>(&d);
      if (!span || !span->is_span || span->end.empty() || span->module != after.module) continue;
      for (const ast::ProbeSpec& b : span->begin) {
        const auto* key = b.key ? std::get_if<ast::NameRef>(&b.key->node) : nullptr;
        if (!key) continue;
        const ast::FieldDecl* field = field_named(after, key->name.str());
        if (!field) continue;
        for (const ast::ProbeSpec& a : after.begin)
          if (same_probe(a, b)) return {span, field};
      }
    }
  return {};
}

void Lowerer::require_in_flight(plan::Cond& recent, const ast::EventDecl& after, const ast::RuleDecl& rule,
                                int correlation) {
  SpanKeyedBy keyed = span_begun_by(after);
  if (!keyed.span) return;
  ast::NameRef ref;
  ref.kind = ast::RefKind::OtherEvent;
  ref.event = &after;
  ref.field = keyed.field;
  recent.lhs = name_value(ref, rule, correlation);  // the key the `after` event left on the thread
  recent.span = event_sites(*keyed.span).span;
}

void Lowerer::retire_with_span(const plan::Metric& live, int live_index, const ast::EventDecl& span) {
  const EventSites& es = event_sites(span);
  plan::Metric ended;
  ended.name = live.name + "_ended";
  ended.map = map_names_.name(kMetricMap, ended.name, "ended " + live.name);
  ended.kind = plan::MetricKind::Hist;
  std::string span_name = span.module.empty() ? span.name.name : span.module + "." + span.name.name;
  ended.help = "The final value of " + live.name + " for each " + span_name + ", observed when it ended.";
  ended.origin = live.origin;
  ended.unit = live.kind == plan::MetricKind::Count ? plan::FieldUnit::None : live.unit;
  ended.key_size = 8;
  ended.value_size = 16 + 8 * plan::kHistBuckets;
  ended.per_cpu = false;
  plan::MetricUpdate retire;
  retire.metric = static_cast<int>(program.plan.metrics.size());
  retire.retire = live_index;
  program.plan.metrics.push_back(std::move(ended));
  for (int s : es.end) {
    plan::Action* end = span_end_action(s, es);
    if (!end) continue;
    plan::MetricUpdate at_end = retire;
    at_end.key = end->key;  // the ending span's key: the id its series is labelled with
    end->metrics.push_back(static_cast<int>(program.metric_updates.size()));
    program.metric_updates.push_back(std::move(at_end));
  }
}

}  // namespace seam::lower
