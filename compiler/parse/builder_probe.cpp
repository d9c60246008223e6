// Probe specifications: `lib:sym+0x10`, `uprobe ...`, `tracepoint cat:name`, `perf cycles at 99 hz`, ...
#include "compiler/parse/builder.hpp"
#include "compiler/parse/grammar.hpp"

namespace seam::parse {

namespace g = grammar;

// A library alias (`cudart`) or a quoted path (`"/usr/lib/libcudart.so"`).
void Builder::library_ref(const Node& n, ast::ProbeSpec& spec) {
  if (n.is_type<g::string_lit>()) {
    spec.library = ast::Ident{string_value(n), range(n)};
    spec.library_is_path = true;
  } else {
    spec.library = ident(n);
  }
}

ast::ProbeSpec Builder::probe(const Node& n, ast::ProbeKind bare_kind) {
  ast::ProbeSpec spec;
  spec.range = range(n);
  auto set_symbol = [&](const Node& s) {
    spec.symbol = s.string();
    spec.symbol_range = range(s);
  };
  auto set_offset = [&](size_t i) {
    if (i < n.children.size() && n.children[i]->is_type<g::offset>())
      spec.offset = integer(*n.children[i]->children[0]);
  };

  if (n.is_type<g::probe_bare>() || n.is_type<g::callsite>() || n.is_type<g::probe_uprobe>() ||
      n.is_type<g::probe_uretprobe>()) {
    spec.kind = n.is_type<g::probe_uprobe>()      ? ast::ProbeKind::Uprobe
                : n.is_type<g::probe_uretprobe>() ? ast::ProbeKind::Uretprobe
                                                  : bare_kind;
    library_ref(*n.children[0], spec);
    set_symbol(*n.children[1]);
    set_offset(2);
  } else if (n.is_type<g::probe_usdt>()) {
    spec.kind = ast::ProbeKind::Usdt;
    library_ref(*n.children[0], spec);
    spec.category = n.children[1]->string();
    spec.name = n.children[2]->string();
    spec.symbol_range = range(*n.children[2]);
  } else if (n.is_type<g::probe_tracepoint>()) {
    spec.kind = ast::ProbeKind::Tracepoint;
    spec.category = n.children[0]->string();
    spec.name = n.children[1]->string();
    spec.symbol_range = range(*n.children[1]);
  } else if (n.is_type<g::probe_raw_tracepoint>()) {
    spec.kind = ast::ProbeKind::RawTracepoint;
    set_symbol(*n.children[0]);
  } else if (n.is_type<g::probe_kprobe>()) {
    spec.kind = ast::ProbeKind::Kprobe;
    set_symbol(*n.children[0]);
    set_offset(1);
  } else if (n.is_type<g::probe_kretprobe>() || n.is_type<g::probe_fentry>() || n.is_type<g::probe_fexit>()) {
    spec.kind = n.is_type<g::probe_kretprobe>() ? ast::ProbeKind::Kretprobe
                : n.is_type<g::probe_fentry>()  ? ast::ProbeKind::Fentry
                                                : ast::ProbeKind::Fexit;
    set_symbol(*n.children[0]);
  } else if (n.is_type<g::probe_perf>()) {
    spec.kind = ast::ProbeKind::Perf;
    set_symbol(*n.children[0]);
    const Node& rate = *n.children[1];
    uint64_t value = integer(*rate.children[0]);
    (rate.is_type<g::perf_at>() ? spec.frequency : spec.period) = value;
  } else {  // interval
    spec.kind = ast::ProbeKind::Interval;
    spec.interval_ns = duration_ns(*n.children[0], "interval");
  }
  return spec;
}

}  // namespace seam::parse
