#include "compiler/codegen/generate.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/codegen/c_escape.hpp"
#include "compiler/codegen/c_expr.hpp"
#include "compiler/codegen/c_invariant.hpp"
#include "compiler/codegen/prebuilt_bpf.hpp"
#include "compiler/codegen/scope_slots.hpp"
#include "compiler/codegen/subject.hpp"
#include "compiler/codegen/template.hpp"

namespace seam::codegen {

namespace {

std::string key_expr(const plan::Value& key, const ExprContext& ctx) {
  return "(__u32)" + c_value(key, ctx);
}

// A span's value: after its start, the generation that began it (seam_ends), its ip and saves.
std::string value_fields(size_t slots, bool span) {
  std::string s;
  if (span)
    s += "\t__u32 gen; /* the generation that began it (seam_generation.h) */\n\t__u32 pad;\n\t__u64 ip;\n";
  if (slots) s += "\t__u64 s[" + std::to_string(slots) + "];\n";
  return s;
}

std::string maps(const plan::Program& p) {
  std::string out;
  for (const plan::Span& s : p.spans)
    out += fragment(s.task_local ? "map_task.c.tmpl" : "map_lru.c.tmpl",
                    {{"purpose", "span " + s.name + " in flight, by key"},
                     {"map", s.map},
                     {"time_field", "start_ns"},
                     {"value_fields", value_fields(s.saves.size(), true)},
                     {"entries", std::to_string(16384)}});
  std::set<std::string> reader_maps;
  for (const plan::MemoryReader& r : p.plan.memory_readers)
    if (reader_maps.insert(r.map).second)
      out += fragment("map_py_procs.c.tmpl",
                      {{"purpose", r.state + " read from memory"}, {"map", r.map}, {"entries", "16384"}});
  for (const plan::State& s : p.states) {
    if (s.memory_reader >= 0) continue;  // its process map is the reader's, above
    out += fragment(s.task_local ? "map_state_task.c.tmpl" : "map_state.c.tmpl",
                    {{"purpose", "state " + s.name + (s.per_process ? " per process" : " per thread")},
                     {"map", s.map},
                     {"entries", "16384"}});
  }
  for (const plan::Correlation& c : p.correlations)
    out += fragment(c.task_local ? "map_task.c.tmpl" : "map_lru.c.tmpl",
                    {{"purpose", "last " + c.event + " per thread"},
                     {"map", c.map},
                     {"time_field", "ts"},
                     {"value_fields", value_fields(c.saves.size(), false)},
                     {"entries", "16384"}});
  for (const plan::Metric& m : p.plan.metrics) {
    std::string keys;
    for (size_t i = 0; i < m.labels.size(); ++i)
      keys += m.labels[i].type == plan::FieldType::Str ? "\tchar l" + std::to_string(i) + "[16];\n"
                                                       : "\t__u64 l" + std::to_string(i) + ";\n";
    out += fragment("map_metric.c.tmpl",
                    {{"metric", m.name},
                     {"map", m.map},
                     {"max_series", std::to_string(m.max_series)},
                     {"key_fields", keys},
                     {"buckets", m.kind == plan::MetricKind::Hist
                                     ? "\t__u64 buckets[" + std::to_string(plan::kHistBuckets) + "];\n"
                                     : ""},
                     {"layout", m.per_cpu ? "per-CPU" : "shared (atomic adds), allocated on use,"},
                     {"map_type", m.per_cpu ? "BPF_MAP_TYPE_PERCPU_HASH" : "BPF_MAP_TYPE_HASH"},
                     {"map_flags", m.per_cpu ? "" : "\t__uint(map_flags, 1 /* BPF_F_NO_PREALLOC */);\n"},
                     {"entries", std::to_string(m.max_series + 1)}});
  }
  return out;
}

// A rule check or metric update of a program serving several scope slots runs only for the
// processes in its own (scope_slots.hpp).
std::string gated(const ExprContext& ctx, int slot, const std::string& code) {
  if (!ctx.gate_slots || !ctx.gate_slots->count(slot)) return code;
  return "\tif (seam_in_scope(tgid, " + std::to_string(slot) + ")) {\n" + code + "\t}\n";
}

std::string indent(const std::string& lines);

// At a span's end, the series of its key in metric `u.retire` ends: its count (or sum) is observed
// into the histogram `u.metric`, and the series deleted (lower_span_key.cpp).
std::string metric_retire(const plan::Program& p, const plan::MetricUpdate& u, const ExprContext& ctx) {
  const plan::Metric& live = p.plan.metrics.at(static_cast<size_t>(u.retire));
  const plan::Metric& ended = p.plan.metrics.at(static_cast<size_t>(u.metric));
  std::string observe =
      fragment("metric_update.c.tmpl", {{"condition", "1"},
                                        {"metric", ended.name},
                                        {"map", ended.map},
                                        {"labels", ""},
                                        {"value", "final_value"},
                                        {"update",
                                         "\t\t\t__sync_fetch_and_add(&m->count, 1);\n"
                                         "\t\t\t__sync_fetch_and_add(&m->sum, v);\n"},
                                        {"bucket_update", "\t\t\tSEAM_HIST_ADD(m->buckets, v);\n"}});
  return fragment("metric_retire.c.tmpl", {{"metric", live.name},
                                           {"map", live.map},
                                           {"key", "(__u64)" + c_value(u.key, ctx)},
                                           {"final", live.kind == plan::MetricKind::Count ? "count" : "sum"},
                                           {"observe", indent(observe)}});
}

std::string metric_update(const plan::Program& p, int index, const ExprContext& ctx) {
  const plan::MetricUpdate& u = p.metric_updates.at(static_cast<size_t>(index));
  if (u.retire >= 0) return metric_retire(p, u, ctx);
  const plan::Metric& m = p.plan.metrics.at(static_cast<size_t>(u.metric));
  std::string labels;
  for (size_t i = 0; i < u.labels.size(); ++i) {
    std::string field = "k.l" + std::to_string(i);
    if (u.labels[i].kind == plan::ValueKind::Comm)
      labels += "\t\tbpf_get_current_comm(" + field + ", sizeof(" + field + "));\n";
    else if (std::string copy = c_copy_name(field, u.labels[i], ctx); !copy.empty())
      labels += "\t\t" + copy + ";\n";
    else
      labels += "\t\t" + field + " = (__u64)" + c_value(u.labels[i], ctx) + ";\n";
  }
  bool valued = m.kind != plan::MetricKind::Count;
  return gated(ctx, metric_slot(p, index),
               fragment("metric_update.c.tmpl",
                        {{"condition", c_condition(u.when, ctx)},
                         {"metric", m.name},
                         {"map", m.map},
                         {"labels", labels},
                         {"value", valued ? "(__u64)" + c_value(u.value, ctx) : "1ULL"},
                         {"update", m.per_cpu ? "\t\t\tm->count += 1;\n\t\t\tm->sum += v;\n"
                                              : "\t\t\t__sync_fetch_and_add(&m->count, 1);\n"
                                                "\t\t\t__sync_fetch_and_add(&m->sum, v);\n"},
                         {"bucket_update",
                          m.kind == plan::MetricKind::Hist ? "\t\t\tSEAM_HIST_ADD(m->buckets, v);\n" : ""}}));
}

// A span begin that reads the clock itself, after its filter, rather than the program's `now`:
// a filtered begin that saves no `time`, so an event no rule can match reads no clock at all.
bool begin_reads_clock(const plan::Span& s) {
  return !s.task_local && s.begin_when.op != plan::CondOp::True &&
         std::none_of(s.saves.begin(), s.saves.end(),
                      [](const plan::Value& v) { return v.kind == plan::ValueKind::Time; });
}

// One more tab on every line.
std::string indent(const std::string& lines) {
  std::string out;
  bool at_start = true;
  for (char ch : lines) {
    if (at_start && ch != '\n') out += '\t';
    out += ch;
    at_start = ch == '\n';
  }
  return out;
}

// `var` is "v." for a value on the stack, "v->" for one in task storage.
std::string saves(const std::vector<plan::Value>& values, const std::string& var, const ExprContext& ctx) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].kind == plan::ValueKind::BeginThread && values[i].name == "comm") {  // two slots
      out += std::string("\t\tbpf_get_current_comm(&") + var + "s[" + std::to_string(i) + "], 16);\n";
      ++i;
      continue;
    }
    out += std::string("\t\t") + var + "s[" + std::to_string(i) + "] = (__u64)" + c_value(values[i], ctx) +
           ";\n";
  }
  return out;
}

std::string fills(const plan::RuleCheck& rule, const ExprContext& ctx) {
  std::string out;
  if (rule.thread_slot >= 0 && ctx.in_span_end) {  // the record is about the thread that began the span
    std::string k = std::to_string(rule.thread_slot);
    out +=
        "\t\t\t{\n\t\t\t\tstruct seam_record_header *h = (struct seam_record_header *)rec;\n"
        "\t\t\t\th->pid = (__u32)(sv->s[" +
        k + "] >> 32);\n\t\t\t\th->tid = (__u32)sv->s[" + k + "];\n\t\t\t\th->cgroup = sv->s[" +
        std::to_string(rule.thread_slot + 1) + "];\n\t\t\t\t__builtin_memcpy(h->comm, &sv->s[" +
        std::to_string(rule.thread_slot + 2) + "], 16);\n\t\t\t}\n";
  }
  for (const plan::RecordFill& f : rule.fills) {
    if (f.field.type == plan::FieldType::UStack || f.field.type == plan::FieldType::KStack) {
      bool user = f.field.type == plan::FieldType::UStack;
      bool saved_ip = user && rule.ustack_from_saved_ip && ctx.in_span_end;
      uint32_t frames = (f.field.size - 8) / 8 - (saved_ip ? 1 : 0);
      out += fragment("fill_stack.c.tmpl", {{"offset", std::to_string(f.field.offset)},
                                            {"first", saved_ip ? "1" : "0"},
                                            {"bytes", std::to_string(frames * 8)},
                                            {"flags", user ? "BPF_F_USER_STACK" : "0"},
                                            {"frame0", saved_ip ? "\t\t\t\tst[1] = sv->ip;\n" : ""}});
    } else if (f.field.type == plan::FieldType::UStackCopy) {
      bool saved_ip = rule.ustack_from_saved_ip && ctx.in_span_end;
      out += fragment(
          "fill_stack_copy.c.tmpl",
          {{"offset", std::to_string(f.field.offset)},
           {"frame0", saved_ip ? "sv->ip" : "0"},
           {"chunks", std::to_string((f.field.size - plan::kStackCopyHeader) / plan::kStackCopyChunk)}});
    } else if (f.field.type == plan::FieldType::PyStack) {
      out +=
          fragment("fill_pystack.c.tmpl",
                   {{"offset", std::to_string(f.field.offset)},
                    {"map", f.source.name},
                    {"frames", std::to_string((f.field.size - plan::kPyStackHeader) / plan::kPyFrameBytes)}});
    } else if (f.field.type == plan::FieldType::Str) {  // a name: 16 bytes
      std::string copy = c_copy_name("rec + " + std::to_string(f.field.offset), f.source, ctx);
      if (copy.empty()) throw std::logic_error("a string field with nothing to copy");
      out += "\t\t\t" + copy + ";\n";
    } else {
      out += fragment("fill_scalar.c.tmpl",
                      {{"offset", std::to_string(f.field.offset)}, {"value", c_value(f.source, ctx)}});
    }
  }
  return out;
}

std::string rules(const std::vector<plan::RuleCheck>& checks, const ExprContext& ctx) {
  std::string out;
  for (const plan::RuleCheck& r : checks)
    out += gated(ctx, rule_slot(*ctx.program, r.rule_id),
                 fragment("rule.c.tmpl", {{"line", std::to_string(r.origin_line ? r.origin_line : 1)},
                                          {"file", c_string_literal(r.origin_file)},
                                          {"condition", c_condition(r.when, ctx)},
                                          {"rule", std::to_string(r.rule_id)},
                                          {"rule_id", std::to_string(r.rule_id) + "U"},
                                          {"size", std::to_string(r.record_size)},
                                          {"fills", fills(r, ctx)},
                                          {"next_line", "__SEAM_LINE__"},
                                          {"generated_file", kGeneratedFile}}));
  return out;
}

std::string mark(const plan::Program& p, int index, const ExprContext& ctx) {
  const plan::Correlation& c = p.correlations.at(static_cast<size_t>(index));
  return fragment(c.task_local ? "correlation_mark_task.c.tmpl" : "correlation_mark.c.tmpl",
                  {{"event", c.event},
                   {"map", c.map},
                   {"saves", c.task_local ? indent(saves(c.saves, "c->", ctx)) : saves(c.saves, "c.", ctx)}});
}

std::string action(const plan::Program& p, const plan::Action& a, ExprContext ctx) {
  switch (a.kind) {
    case plan::ActionKind::SpanBegin: {
      const plan::Span& s = p.spans.at(static_cast<size_t>(a.index));
      if (s.never) return "\t/* span " + s.name + ": nothing reads it, so its begin stores nothing */\n";
      std::string var = s.task_local ? "v->" : "v.";
      std::string body = saves(s.saves, var, ctx);
      if (s.save_ip) body = "\t\t" + var + "ip = PT_REGS_IP(ctx);\n" + body;
      if (s.task_local) body = indent(body);  // inside `if (v)`
      bool filtered = s.begin_when.op != plan::CondOp::True;
      std::string begin = fragment(s.task_local ? "span_begin_task.c.tmpl" : "span_begin.c.tmpl",
                                   {{"span", s.name},
                                    {"map", s.map},
                                    {"key", key_expr(a.key, ctx)},
                                    {"saves", body},
                                    {"start", begin_reads_clock(s) ? "bpf_ktime_get_ns()" : "now"}});
      if (!filtered) return begin;
      // Only where a rule or metric on the span can still match (compiler/lower/begin_filter.hpp).
      return "\tif (" + c_condition(s.begin_when, ctx) + ") { /* begin-time filter of span " + s.name +
             " */\n" + indent(begin) + "\t}\n";
    }
    case plan::ActionKind::SpanEnd: {
      const plan::Span& s = p.spans.at(static_cast<size_t>(a.index));
      std::string key = key_expr(a.key, ctx);
      ctx.in_span_end = true;
      std::string marks;
      for (int m : a.marks) marks += mark(p, m, ctx);
      for (int m : a.metrics) marks += metric_update(p, m, ctx);
      return fragment(
          s.task_local ? "span_end_task.c.tmpl" : "span_end.c.tmpl",
          {{"span", s.name}, {"map", s.map}, {"key", key}, {"rules", rules(a.rules, ctx)}, {"marks", marks}});
    }
    case plan::ActionKind::StateSet:
    case plan::ActionKind::StateClear: {
      const plan::State& s = p.states.at(static_cast<size_t>(a.index));
      std::string name = a.kind == plan::ActionKind::StateSet ? "state_set" : "state_clear";
      return fragment(name + (s.task_local ? "_task.c.tmpl" : ".c.tmpl"),
                      {{"state", s.name}, {"map", s.map}, {"key", s.per_process ? "tgid" : "tid"}});
    }
    case plan::ActionKind::CorrelationMark:
      return mark(p, a.index, ctx);
    case plan::ActionKind::Rules:
      return rules(a.rules, ctx);
    case plan::ActionKind::MetricUpdate:
      return metric_update(p, a.index, ctx);
  }
  return {};
}

std::string describe(const plan::Attachment& a, const plan::Program& p) {
  std::string what = plan::to_string(a.kind);
  if (a.library >= 0) what += " " + p.plan.libraries.at(static_cast<size_t>(a.library)).name + ":";
  if (!a.symbols.empty()) what += a.symbols[0];
  if (!a.category.empty()) what += " " + a.category + ":";
  what += a.name;
  return what;  // it goes into a comment: expand() passes it through comment_text()
}

bool has_subjects(const plan::Site& site) {
  return std::any_of(site.actions.begin(), site.actions.end(),
                     [](const plan::Action& a) { return subject_of(a) != Subject::Current; });
}

// The helpers of seam_subject.c.tmpl, for a program with a site about other threads.
std::string subject_helpers(const plan::Program& p) {
  if (std::none_of(p.sites.begin(), p.sites.end(), has_subjects)) return {};
  const plan::Plan& plan = p.plan;
  return fragment(
      "seam_subject.c.tmpl",
      {{"and_target", plan.target_tgid ? " and of the --pid target" : ""},
       {"not_noted",
        plan.target_tgid ? "tgid != seam_self_tgid && tgid != seam_target_tgid" : "tgid != seam_self_tgid"},
       {"subject_test", plan.target_tgid     ? "tgid && *tgid == seam_target_tgid"
                        : plan.target_cgroup ? "current_ok"  // a cgroup is known only for the current task
                                             : "1"}});
}

// An action of a site with subjects (subject.hpp), under the test its subject needs.
std::string subject_gated(const plan::Action& a, const std::string& code, const ExprContext& ctx) {
  switch (subject_of(a)) {
    case Subject::Current:
      return "\tif (seam_current_ok) {\n" + code + "\t}\n";
    case Subject::Keyed:
      return "\tif (seam_subject_ok(" + key_expr(a.key, ctx) + ", tid, seam_current_ok)) {\n" + code +
             "\t}\n";
    case Subject::Begun:
      break;
  }
  return code;
}

// A uprobe session site's body (compiler/lower/uprobe_session.cpp): the actions before the span's
// begin run at every entry; then the span begins, unless the lock reads free, when it ends there
// at once; the rest run at the return. `texts` holds each action's code, in site.actions' order.
std::string session(const plan::Program& p, const plan::Site& site, const std::vector<std::string>& texts,
                    ExprContext ctx) {
  std::string entry, begin, ret, early;
  bool at_entry = true;
  const plan::Span& span = p.spans.at(static_cast<size_t>(site.session_span));
  for (size_t i = 0; i < site.actions.size(); ++i) {
    const plan::Action& act = site.actions[i];
    if (act.kind == plan::ActionKind::SpanBegin && act.index == site.session_span) {
      begin = texts[i];
      at_entry = false;
    } else {
      (at_entry ? entry : ret) += texts[i];
    }
    if (act.kind != plan::ActionKind::SpanEnd || act.index != site.session_span) continue;
    ctx.in_span_end = true;
    std::string marks;
    for (int m : act.marks) marks += mark(p, m, ctx);
    for (int m : act.metrics) marks += metric_update(p, m, ctx);
    std::string saved = saves(span.saves, "early.", ctx);
    if (span.save_ip) saved = "\t\tearly.ip = PT_REGS_IP(ctx);\n" + saved;
    early = fragment("span_end_at_entry.c.tmpl", {{"span", span.name},
                                                  {"why", "the lock reads free, so it lasts no time"},
                                                  {"map", span.map},
                                                  {"saves", saved},
                                                  {"rules", rules(act.rules, ctx)},
                                                  {"marks", marks}});
    ctx.in_span_end = false;
    // Only where the begin would have stored it (compiler/lower/begin_filter.hpp).
    if (span.begin_when.op != plan::CondOp::True)
      early = "\tif (" + c_condition(span.begin_when, ctx) + ") {\n" + indent(early) + "\t}\n";
  }
  const plan::Attachment& a = p.plan.attachments.at(static_cast<size_t>(site.attachment));
  return fragment("uprobe_session.c.tmpl", {{"symbol", a.symbols.empty() ? a.program : a.symbols[0]},
                                            {"reader_map", site.early_end_map},
                                            {"early_end", indent(early)},
                                            {"entry", indent(entry)},
                                            {"begin", indent(begin)},
                                            {"return", ret}});
}

// The --pid and -c tests a site starts with; `skip` is what its early returns give. The values are
// the loader's constants (plan::Plan::target_tgid): the verifier knows them, the C does not.
std::string target_filter(const plan::Plan& plan, const std::string& skip) {
  std::string filter;
  if (plan.target_tgid) filter += "\tif (tgid != seam_target_tgid)\n\t\treturn " + skip + ";\n";
  if (plan.target_cgroup)
    filter += "\tif (bpf_get_current_cgroup_id() != seam_target_cgroup)\n\t\treturn " + skip + ";\n";
  return filter;
}

// The programs, each in the part of a parallel build it falls to (SEAM_IN_PART, seam_prelude.h):
// numbered by size, largest first, so that program k going to part k % N spreads the work over
// any N parts (a program's text stands for its compile time). The text keeps their order.
std::string in_parts(const std::vector<std::string>& programs) {
  // Sized without their #line directives, whose numbers are only written once the text is whole.
  std::vector<size_t> size(programs.size());
  for (size_t i = 0; i < programs.size(); ++i) {
    size[i] = programs[i].size();
    for (size_t at = programs[i].find("#line "); at != std::string::npos;
         at = programs[i].find("#line ", at + 1))
      if (at == 0 || programs[i][at - 1] == '\n') size[i] -= programs[i].find('\n', at) - at + 1;
  }
  std::vector<size_t> by_size(programs.size());
  std::iota(by_size.begin(), by_size.end(), size_t{0});
  std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) { return size[a] > size[b]; });
  std::vector<size_t> rank(programs.size());
  for (size_t r = 0; r < by_size.size(); ++r) rank[by_size[r]] = r;
  std::string out;
  for (size_t i = 0; i < programs.size(); ++i) {
    const std::string& text = programs[i];
    bool ends_line = !text.empty() && text.back() == '\n';
    out +=
        "#if SEAM_IN_PART(" + std::to_string(rank[i]) + ")\n" + text + (ends_line ? "" : "\n") + "#endif\n";
  }
  return out;
}

// How a site's program is named where it is written: its function, its ELF section and the
// comment above it.
struct SiteNaming {
  std::string program, section, description;
};

// The C of one site's program.
std::string site_program(const plan::Program& p, const plan::Site& site, const Options& options,
                         const SiteNaming& naming) {
  std::string current_ok = "tgid != seam_self_tgid";
  if (p.plan.target_tgid) current_ok += " && tgid == seam_target_tgid";
  if (p.plan.target_cgroup) current_ok += " && bpf_get_current_cgroup_id() == seam_target_cgroup";
  const bool subjects = has_subjects(site);
  // What the program's early returns give: 1 at a session's entry (nothing to do at the return
  // either), 0 elsewhere.
  const std::string skip = site.session_span >= 0 ? "1" : "0";
  const plan::Attachment& a = p.plan.attachments.at(static_cast<size_t>(site.attachment));
  ExprContext ctx{&p, context_kind(site, a), false, nullptr, &a};
  // One slot: test it first (or nothing); several: each rule and metric on its own.
  std::set<int> slots = site_slots(p, site), gate;
  std::string scope_test;
  if (slots.size() == 1 && slot_tests(p, options, *slots.begin()))
    scope_test =
        "\tif (!seam_in_scope(tgid, " + std::to_string(*slots.begin()) + "))\n\t\treturn " + skip + ";\n";
  for (int slot : slots)
    if (slots.size() > 1 && slot_tests(p, options, slot)) gate.insert(slot);
  if (!gate.empty()) ctx.gate_slots = &gate;
  // A site that ends a span runs when its generation is not live too: its span ends act on the
  // spans their own generation began (seam_ends), everything else only while live. A session's
  // entry returns when not live (uprobe_session.c.tmpl), and its return carries only the end.
  const bool ends_spans = std::any_of(site.actions.begin(), site.actions.end(), [](const plan::Action& a) {
    return a.kind == plan::ActionKind::SpanEnd;
  });
  std::string actions;
  std::vector<std::string> texts;  // of each action, for a session site (session())
  bool needs_time = site.session_span >= 0;
  for (const plan::Action& act : site.actions) {
    texts.push_back(subjects ? subject_gated(act, action(p, act, ctx), ctx) : action(p, act, ctx));
    if (ends_spans && act.kind != plan::ActionKind::SpanEnd && site.session_span < 0)
      texts.back() = "\tif (seam_acts) {\n" + indent(texts.back()) + "\t}\n";
    actions += texts.back();
    // A task-local span begin reads the clock itself, after the value exists (unless it saves `time`).
    // So does a filtered one (begin_reads_clock), and one that stores nothing reads none.
    bool task_begin = false;
    if (act.kind == plan::ActionKind::SpanBegin) {
      const plan::Span& s = p.spans.at(static_cast<size_t>(act.index));
      task_begin = s.never || begin_reads_clock(s) ||
                   (s.task_local && std::none_of(s.saves.begin(), s.saves.end(), [](const plan::Value& v) {
                      return v.kind == plan::ValueKind::Time;
                    }));
    }
    if (act.kind != plan::ActionKind::StateSet && act.kind != plan::ActionKind::StateClear && !task_begin)
      needs_time = true;
  }
  if (site.session_span >= 0) actions = session(p, site, texts, ctx);
  return fragment(
      "site.c.tmpl",
      {{"description", naming.description},
       {"live_test",
        ends_spans ? "\tconst int seam_acts = seam_live(); /* span ends: seam_ends */\n"
                   : "\tif (!seam_live()) /* another generation acts (seam_generation.h) */\n\t\treturn " +
                         skip + ";\n"},
       {"section", naming.section},
       {"program", naming.program},
       {"context", site.context_type},
       {"now", needs_time ? "\t__u64 now = bpf_ktime_get_ns();\n" : ""},
       {"self_filter", subjects ? "\tseam_note_thread(tid, tgid);\n"
                                : "\tif (tgid == seam_self_tgid)\n\t\treturn " + skip + ";\n"},
       {"target_filter", subjects ? "\tint seam_current_ok = " + current_ok + ";\n\t(void)seam_current_ok;\n"
                                  : target_filter(p.plan, skip)},
       {"scope_test", scope_test},
       {"actions", actions}});
}

// What a site's program is attached to, for the comment above it: every attach point of a
// shared program (share_identical_programs()).
std::string describe_site(const plan::Program& p, const plan::Site& site) {
  const plan::Attachment& a = p.plan.attachments.at(static_cast<size_t>(site.attachment));
  std::string what;
  for (const plan::Attachment& b : p.plan.attachments)
    if (b.program == a.program) what += (what.empty() ? "" : ", ") + describe(b, p);
  return what + (site.session_span >= 0 ? " and its return, one uprobe session" : "") + " (" + a.origin + ")";
}

std::vector<std::string> sites(const plan::Program& p, const Options& options) {
  std::vector<std::string> out;
  for (const plan::Site& site : p.sites) {
    const plan::Attachment& a = p.plan.attachments.at(static_cast<size_t>(site.attachment));
    out.push_back(site_program(p, site, options, {a.program, site.section, describe_site(p, site)}));
  }
  return out;
}

// `#line` directives point clang's errors at the rule; after each rule the generated file's own
// numbering resumes, which is only known once the text is complete.
std::string number_line_resets(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    size_t pos = line.find("__SEAM_LINE__");
    if (pos != std::string::npos) line.replace(pos, 13, std::to_string(n + 1));
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace

void share_identical_programs(plan::Program& program, const Options& options) {
  std::map<std::string, size_t> kept_by_text;  // a site's program, named neutrally -> its index in kept
  std::vector<plan::Site> kept;
  for (plan::Site& site : program.sites) {
    plan::Attachment& a = program.plan.attachments.at(static_cast<size_t>(site.attachment));
    // A fallback chain decides per program which one loads; a session is its own kind of link.
    if (site.session_span >= 0 || a.is_fallback || !a.fallback.empty()) {
      kept.push_back(std::move(site));
      continue;
    }
    // Only the section's kind ("tracepoint", "uprobe") decides the program's type; the attach
    // point comes from the attachment.
    std::string kind = site.section.substr(0, site.section.find('/'));
    std::string text = plan::to_string(a.kind) + std::string("\n") +
                       site_program(program, site, options, {"seam_shared", kind, ""});
    auto [it, fresh] = kept_by_text.emplace(std::move(text), kept.size());
    if (fresh) {
      kept.push_back(std::move(site));
    } else {
      a.program = program.plan.attachments.at(static_cast<size_t>(kept[it->second].attachment)).program;
    }
  }
  program.sites = std::move(kept);
}

Generated generate(const plan::Program& program, const Options& options) {
  std::set<std::string> sources;
  for (const plan::Rule& r : program.plan.rules) sources.insert(r.file);
  std::string from;
  for (const std::string& s : sources) from += (from.empty() ? "" : ", ") + s;
  // File names go into the header's line comment: expand() passes them through comment_text().
  bool usdt = false;
  for (const plan::Attachment& a : program.plan.attachments) usdt |= a.kind == plan::AttachKind::Usdt;
  bool fd_names = std::find(program.kernel_types.begin(), program.kernel_types.end(), "struct fdtable") !=
                  program.kernel_types.end();
  bool py_gil = !program.plan.memory_readers.empty();
  bool session = std::any_of(program.sites.begin(), program.sites.end(),
                             [](const plan::Site& s) { return s.session_span >= 0; });
  bool syscall_structs = std::any_of(program.sites.begin(), program.sites.end(), [](const plan::Site& s) {
    return s.context_type == "struct seam_sys_enter" || s.context_type == "struct seam_sys_exit";
  });
  bool raw_syscalls = std::any_of(
      program.plan.attachments.begin(), program.plan.attachments.end(), [](const plan::Attachment& a) {
        return a.kind == plan::AttachKind::RawTracepoint && a.category == "raw_syscalls";
      });
  bool py_stack = false, stack_copy = false;
  for (const plan::Record& r : program.plan.records)
    for (const plan::Field& f : r.fields) {
      py_stack |= f.type == plan::FieldType::PyStack;
      stack_copy |= f.type == plan::FieldType::UStackCopy;
    }
  std::vector<std::string> programs = sites(program, options);
  // seam's own sched programs as raw tracepoints where lowering says the kernel has them: the
  // exec notice reads nothing, the fork program the child task (plan::Plan::raw_sched_programs).
  const bool raw = program.plan.raw_sched_programs;
  auto sched_section = [raw](const std::string& event) {
    return (raw ? "raw_tracepoint/" : "tracepoint/sched/") + event;
  };
  if (options.exec_notices)
    programs.push_back(
        fragment("exec_notice.c.tmpl", {{"rule_id", std::to_string(plan::kExecNoticeRuleId) + "U"},
                                        {"section", sched_section("sched_process_exec")}}));
  if (scoped(program, options))
    programs.push_back(fragment(
        "scope_follow.c.tmpl",
        {{"fork_section", sched_section("sched_process_fork")},
         {"fork_context",
          raw ? "struct bpf_raw_tracepoint_args" : "struct trace_event_raw_sched_process_fork"},
         {"child_pid", raw ? "SEAM_KERNEL_READ((struct task_struct *)ctx->args[1], pid)" : "ctx->child_pid"},
         {"exit_section", sched_section("sched_process_exit")}}));
  std::string body = in_parts(programs);
  Generated g;
  g.c_source = number_line_resets(fragment(
      "program.c.tmpl",
      {{"sources", from.empty() ? "no rules" : from},
       {"extra_includes",
        (usdt ? "#include \"usdt.bpf.h\"\n#define seam_usdt_arg(ctx, n) "
                "({ long _v = 0; bpf_usdt_arg(ctx, n, &_v); (__u64)_v; })\n"
              : std::string()) +
            (fd_names ? "#include \"seam_fd.h\"\n" : "") +
            (scoped(program, options) ? "#include \"seam_scope.h\"\n"
                                        "SEAM_SHARED const volatile __u64 seam_scope_masks[" +
                                            std::to_string(scope_slot_count(program)) + "] = {};\n" +
                                            fragment("scope_test.c.tmpl", {})
                                      : "") +
            subject_helpers(program) + (py_gil ? "#include \"py_gil.h\"\n" : "") +
            (session ? "#include \"seam_session.h\"\n" : "") + (py_stack ? "#include \"py_stack.h\"\n" : "") +
            (stack_copy ? "#include \"stack_copy.h\"\n" : "") +
            (program.plan.identity_tests.empty() ? "" : "#include \"seam_identity.h\"\n") +
            (syscall_structs ? fragment("syscall_structs.c.tmpl", {}) : "") +
            (raw_syscalls ? fragment("raw_syscall.c.tmpl", {}) : "")},
       {"maps", maps(program)},
       {"sites", body}}));
  if (std::string broken = c_invariant_violation(g.c_source); !broken.empty())
    throw std::logic_error("generated C breaks the escaping invariant: " + broken);
  g.layout = program.plan;
  g.layout["generator"] = "seam";
  if (!program.plan.records.empty() || options.exec_notices) g.prebuilt_calls.push_back(kRecord);
  if (py_gil) g.prebuilt_calls.push_back(kPyGil);
  if (py_stack) g.prebuilt_calls.push_back(kPyWalk);
  if (stack_copy) g.prebuilt_calls.push_back(kStackCopy);
  return g;
}

}  // namespace seam::codegen
