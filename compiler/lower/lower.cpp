#include "compiler/lower/lower.hpp"

#include "compiler/ast/limit_scope.hpp"
#include "compiler/lower/begin_filter.hpp"
#include "compiler/lower/lower_outputs.hpp"
#include "compiler/lower/lower_scope.hpp"
#include "compiler/lower/lowerer.hpp"
#include "compiler/lower/map_contents.hpp"
#include "compiler/lower/map_names.hpp"
#include "compiler/lower/raw_syscall_tracepoints.hpp"
#include "compiler/lower/raw_tracepoint_forms.hpp"
#include "compiler/lower/syscall_tracepoints.hpp"
#include "compiler/lower/task_storage.hpp"

#include <algorithm>

namespace seam::lower {

namespace {

plan::AttachKind attach_kind(ast::ProbeKind kind, bool at_return) {
  switch (kind) {
    case ast::ProbeKind::Call:
      return at_return ? plan::AttachKind::Uretprobe : plan::AttachKind::Uprobe;
    case ast::ProbeKind::Uprobe:
      return plan::AttachKind::Uprobe;
    case ast::ProbeKind::Uretprobe:
      return plan::AttachKind::Uretprobe;
    case ast::ProbeKind::Usdt:
      return plan::AttachKind::Usdt;
    case ast::ProbeKind::Tracepoint:
      return plan::AttachKind::Tracepoint;
    case ast::ProbeKind::RawTracepoint:
      return plan::AttachKind::RawTracepoint;
    case ast::ProbeKind::Kprobe:
      return plan::AttachKind::Kprobe;
    case ast::ProbeKind::Kretprobe:
      return plan::AttachKind::Kretprobe;
    case ast::ProbeKind::Fentry:
      return plan::AttachKind::Fentry;
    case ast::ProbeKind::Fexit:
      return plan::AttachKind::Fexit;
    case ast::ProbeKind::Perf:
    case ast::ProbeKind::Interval:
      return plan::AttachKind::PerfEvent;
  }
  return plan::AttachKind::Uprobe;
}

plan::Feature feature_of(plan::AttachKind kind) {
  switch (kind) {
    case plan::AttachKind::Uprobe:
    case plan::AttachKind::Uretprobe:
      return plan::Feature::Uprobe;
    case plan::AttachKind::Usdt:
      return plan::Feature::Usdt;
    case plan::AttachKind::Tracepoint:
      return plan::Feature::Tracepoint;
    case plan::AttachKind::RawTracepoint:
      return plan::Feature::RawTracepoint;
    case plan::AttachKind::TpBtf:
      return plan::Feature::TpBtf;
    case plan::AttachKind::Kprobe:
    case plan::AttachKind::Kretprobe:
      return plan::Feature::Kprobe;
    case plan::AttachKind::Fentry:
    case plan::AttachKind::Fexit:
      return plan::Feature::Fentry;
    case plan::AttachKind::PerfEvent:
      return plan::Feature::PerfEvent;
  }
  return plan::Feature::Uprobe;
}

// PERF_TYPE_SOFTWARE / PERF_COUNT_SW_CPU_CLOCK and friends, by the names rules use.
bool perf_event_ids(const std::string& name, uint64_t* type, uint64_t* config) {
  struct Known {
    const char* name;
    uint64_t type, config;
  };
  static const Known kKnown[] = {
      {"cpu_clock", 1, 0},        {"task_clock", 1, 1},     {"page_faults", 1, 2},
      {"context_switches", 1, 3}, {"cpu_migrations", 1, 4}, {"cycles", 0, 0},
      {"instructions", 0, 1},     {"cache_misses", 0, 3},   {"branch_misses", 0, 5}};
  for (const Known& k : kKnown)
    if (name == k.name) {
      *type = k.type;
      *config = k.config;
      return true;
    }
  return false;
}

// Alternative functions of one library (`a | a_ptsz`) share one program attached to each.
std::vector<ast::ProbeSpec> merged_begins(const std::vector<ast::ProbeSpec>& probes, bool is_call) {
  std::vector<ast::ProbeSpec> begins;
  for (const ast::ProbeSpec& p : probes) {
    bool merged = false;
    for (ast::ProbeSpec& b : begins)
      if (is_call && p.kind == ast::ProbeKind::Call && b.library.name == p.library.name &&
          b.library_is_path == p.library_is_path && p.offset == 0 && b.offset == 0) {
        b.symbol += "|" + p.symbol;
        merged = true;
      }
    if (!merged) {
      begins.emplace_back();
      ast::ProbeSpec& copy = begins.back();
      copy.kind = p.kind;
      copy.range = p.range;
      copy.library = p.library;
      copy.library_is_path = p.library_is_path;
      copy.symbol = p.symbol;
      copy.offset = p.offset;
      copy.category = p.category;
      copy.name = p.name;
      copy.period = p.period;
      copy.frequency = p.frequency;
      copy.interval_ns = p.interval_ns;
    }
  }
  return begins;
}

}  // namespace

std::string origin_of(const SourceRange& range) {
  if (!range.valid()) return {};
  return range.file->shown() + ":" + std::to_string(range.file->line_col(range.begin).line);
}

// What a declaration is, whichever set it is lowered in: its module's name, or (declared in a
// rule file) that file's path, and its own name.
std::string declared_identity(const std::string& module, const ast::Ident& name) {
  if (!module.empty()) return "module " + module + " " + name.name;
  return "file " + (name.range.valid() ? name.range.file->shown() : std::string()) + " " + name.name;
}

void Lowerer::unsupported(const SourceRange& where, const std::string& what) {
  program.unsupported.push_back(origin_of(where) + ": " + what);
}

const ast::LibraryDecl* Lowerer::find_library(const std::string& module, const std::string& alias) const {
  for (const ast::File* file : input_.modules) {
    const ast::ModuleDecl* m = file->module();
    if (!m || m->name.name != module) continue;
    const ast::LibraryDecl* only = nullptr;
    int count = 0;
    for (const ast::Decl& d : file->decls)
      if (const auto* lib = std::get_if<ast::LibraryDecl>(&d)) {
        ++count;
        only = lib;
        if (lib->name.name == alias) return lib;
      }
    if (alias.empty() && count == 1) return only;  // a bare symbol uses the module's only library
  }
  return nullptr;
}

int Lowerer::library_index(const std::string& module, const ast::Ident& alias, bool is_path) {
  std::string key = is_path ? "path:" + alias.name : module + ":" + alias.name;
  if (auto it = libraries_.find(key); it != libraries_.end()) return it->second;
  plan::Library lib;
  lib.module = module;
  if (is_path) {
    lib.name = alias.name;
    lib.path = alias.name;
  } else {
    const ast::LibraryDecl* decl = find_library(module, alias.name);
    if (!decl) return -1;
    lib.name = decl->name.name;
    for (const ast::LibraryPattern& p : decl->patterns) lib.patterns.push_back({p.executable, p.glob});
  }
  int index = static_cast<int>(program.plan.libraries.size());
  program.plan.libraries.push_back(std::move(lib));
  libraries_[key] = index;
  return index;
}

int Lowerer::site_for(const ast::ProbeSpec& probe, const std::string& module, bool at_return,
                      const std::string& origin, const std::string& context) {
  plan::Attachment a;
  a.kind = attach_kind(probe.kind, at_return);
  a.feature = feature_of(a.kind);
  a.origin = origin;
  plan::Site site;
  switch (a.kind) {
    case plan::AttachKind::Uprobe:
    case plan::AttachKind::Uretprobe:
    case plan::AttachKind::Usdt:
      a.library = library_index(module, probe.library, probe.library_is_path);
      if (a.library < 0) {
        unsupported(probe.range, "library '" + probe.library.name + "' is not declared in module " + module);
        return -1;
      }
      if (a.kind == plan::AttachKind::Usdt) {
        a.category = probe.category;
        a.name = probe.name;
        site.section = "usdt";
      } else {
        for (size_t from = 0, bar;; from = bar + 1) {  // `a|b`: alternatives merged by event_sites
          bar = probe.symbol.find('|', from);
          a.symbols.push_back(probe.symbol.substr(from, bar == std::string::npos ? bar : bar - from));
          if (bar == std::string::npos) break;
        }
        a.offset = probe.offset;
        site.section = a.kind == plan::AttachKind::Uprobe ? "uprobe" : "uretprobe";
      }
      site.context_type = "struct pt_regs";
      break;
    case plan::AttachKind::Tracepoint:
      a.category = probe.category;
      a.name = probe.name;
      site.section = "tracepoint/" + probe.category + "/" + probe.name;
      site.context_type = "struct trace_event_raw_" + probe.name;
      if (raw_event_ && context.empty())
        make_raw_tracepoint_site(a, site);  // raw_syscall_tracepoints.hpp, raw_tracepoint_forms.hpp
      break;
    case plan::AttachKind::RawTracepoint:
      a.name = probe.symbol;
      site.section = "raw_tracepoint/" + probe.symbol;
      site.context_type = "struct bpf_raw_tracepoint_args";
      break;
    case plan::AttachKind::Kprobe:
    case plan::AttachKind::Kretprobe:
      a.name = probe.symbol;
      a.offset = probe.offset;
      site.section = a.kind == plan::AttachKind::Kprobe ? "kprobe" : "kretprobe";
      site.context_type = "struct pt_regs";
      break;
    case plan::AttachKind::Fentry:
    case plan::AttachKind::Fexit:
    case plan::AttachKind::TpBtf:
      a.name = probe.symbol;
      site.section = std::string(a.kind == plan::AttachKind::Fentry ? "fentry/" : "fexit/") + probe.symbol;
      site.context_type = "unsigned long long";
      break;
    case plan::AttachKind::PerfEvent:
      site.section = "perf_event";
      site.context_type = "struct bpf_perf_event_data";
      if (probe.kind == ast::ProbeKind::Interval) {
        a.perf_type = 1;  // PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK: period in ns
        a.perf_period = static_cast<uint64_t>(probe.interval_ns);
        a.name = "interval";
      } else {
        if (!perf_event_ids(probe.symbol, &a.perf_type, &a.perf_config)) {
          unsupported(probe.range, "unknown perf event '" + probe.symbol + "'");
          return -1;
        }
        a.perf_period = probe.period;
        a.perf_frequency = probe.frequency;
        a.name = probe.symbol;
      }
      break;
  }
  if (!context.empty()) site.context_type = context;
  std::string key = std::string(plan::to_string(a.kind)) + "|" + std::to_string(a.library) + "|" +
                    probe.symbol + "|" + std::to_string(a.offset) + "|" + a.category + "|" + a.name + "|" +
                    std::to_string(a.perf_period) + "|" + context;
  if (auto it = sites_.find(key); it != sites_.end()) return it->second;
  int index = static_cast<int>(program.sites.size());
  a.program = "site" + std::to_string(index);
  site.attachment = static_cast<int>(program.plan.attachments.size());
  // A tracepoint made raw (a user's raw_tracepoint point has no category): its kernel reads' types.
  bool raw_tracepoint = a.kind == plan::AttachKind::RawTracepoint && !a.category.empty();
  if (raw_tracepoint && a.category == "raw_syscalls") {
    program.kernel_types.push_back("pt_regs");  // the arguments are read from the saved registers
  } else if (const RawTracepointForm* form =
                 raw_tracepoint ? raw_tracepoint_form(a.category, a.name) : nullptr) {
    for (std::string_view t : form->kernel_types) program.kernel_types.emplace_back(t);
  }
  program.plan.attachments.push_back(std::move(a));
  if (raw_tracepoint && wants_tracepoint_fallback(options_)) raw_sites_.push_back(index);
  if (!context.empty()) {
    // seam's own type (generated with the program), not the kernel's
  } else if (site.context_type.rfind("struct trace_event_raw_", 0) == 0 ||
             site.context_type == "struct pt_regs" || site.context_type == "struct bpf_perf_event_data" ||
             site.context_type == "struct bpf_raw_tracepoint_args")
    program.kernel_types.push_back(site.context_type.substr(7));
  program.sites.push_back(std::move(site));
  sites_[key] = index;
  return index;
}

plan::Action* Lowerer::span_end_action(int site, const EventSites& es) {
  if (!es.is_span) return nullptr;
  for (plan::Action& a : program.sites[static_cast<size_t>(site)].actions)
    if (a.kind == plan::ActionKind::SpanEnd && a.index == es.span) return &a;
  return nullptr;
}

namespace {

ast::ProbeSpec syscall_tracepoint(const std::string& name, const SourceRange& range) {
  ast::ProbeSpec p;
  p.kind = ast::ProbeKind::Tracepoint;
  p.range = range;
  p.category = "syscalls";
  p.name = name;
  return p;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

const EventSites& Lowerer::event_sites(const ast::EventDecl& event) {
  bool variant = variant_event_ == &event && !variant_syscalls_.empty();
  std::pair<const ast::EventDecl*, std::string> key{&event, variant ? joined(variant_syscalls_) : ""};
  if (auto it = events_.find(key); it != events_.end()) return it->second;
  EventSites es;
  es.is_span = event.is_span;
  std::string origin = origin_of(event.name.range);
  std::string name = event.module.empty() ? event.name.name : event.module + "." + event.name.name;
  // A variant reads the syscalls' own tracepoints as the event's (syscall_tracepoints.hpp).
  std::vector<ast::ProbeSpec> variant_begin, variant_end;
  std::string begin_context, end_context;
  if (variant) {
    for (const std::string& sc : variant_syscalls_) {
      variant_begin.push_back(syscall_tracepoint("sys_enter_" + sc, event.name.range));
      if (event.is_span) variant_end.push_back(syscall_tracepoint("sys_exit_" + sc, event.name.range));
    }
    begin_context = kSyscallEnterContext;
    end_context = kSyscallExitContext;
    name += " (" + key.second + ")";
  }
  const std::vector<ast::ProbeSpec>& begin_probes = variant ? variant_begin : event.begin;
  const std::vector<ast::ProbeSpec>& end_probes = variant ? variant_end : event.end;
  if (event.is_span) {
    es.span = static_cast<int>(program.spans.size());
    plan::Span& span = program.spans.emplace_back();
    span.map = map_names_.name(
        kSpanMap, variant ? variant_syscalls_.front() : event.name.name,
        declared_identity(event.module, event.name) + (variant ? " (" + key.second + ")" : ""));
    span.name = name;
    program.plan.maps.push_back({program.spans.back().map,
                                 plan::MapType::LruHash,
                                 4,
                                 0,
                                 options_.inflight_entries,
                                 "span " + name + " in flight",
                                 {}});
  }
  es.is_call = !begin_probes.empty() && begin_probes[0].kind == ast::ProbeKind::Call;
  raw_event_ = !variant && (reads_raw_syscalls(event) || reads_raw_forms(event)) &&
               use_raw_syscall_tracepoints(options_);
  std::vector<ast::ProbeSpec> begins = merged_begins(begin_probes, es.is_call);
  for (const ast::ProbeSpec& p : begins) {
    es.begin_kind = p.kind;
    int s = site_for(p, event.module, false, origin, begin_context);
    if (s >= 0) es.begin.push_back(s);
    if (es.is_call) {
      int e = site_for(p, event.module, true, origin);
      if (e >= 0) es.end.push_back(e);
      es.end_kind = p.kind;
    }
  }
  for (const ast::ProbeSpec& p : begin_probes) es.keyed |= event.is_span && !es.is_call && p.key != nullptr;
  for (const ast::ProbeSpec& p : end_probes) {
    es.keyed |= p.key != nullptr;
    es.end_kind = p.kind;
    int e = site_for(p, event.module, false, origin, end_context);
    if (e >= 0) es.end.push_back(e);
  }
  raw_event_ = false;
  if (!event.is_span) es.end = es.begin;
  // Span begin and end actions; rules attach to the end actions later.
  if (event.is_span) {
    for (size_t i = 0; i < es.begin.size(); ++i) {
      plan::Action begin(plan::ActionKind::SpanBegin, es.span);
      begin.key.kind = plan::ValueKind::Tid;
      if (!es.is_call && i < begin_probes.size() && begin_probes[i].key)
        begin.key = key_value(event, *begin_probes[i].key, begin_probes[i].kind);
      program.sites[es.begin[i]].actions.push_back(std::move(begin));
    }
    for (size_t i = 0; i < es.end.size(); ++i) {
      plan::Action end(plan::ActionKind::SpanEnd, es.span);
      end.key.kind = plan::ValueKind::Tid;
      const ast::ProbeSpec* spec = es.is_call ? nullptr : (i < end_probes.size() ? &end_probes[i] : nullptr);
      if (spec && spec->key) end.key = key_value(event, *spec->key, spec->kind);
      program.sites[es.end[i]].actions.push_back(std::move(end));
    }
  }
  return events_[key] = std::move(es);
}

std::vector<std::string> Lowerer::syscall_variant(const ast::EventDecl& event, const ast::Expr* where) const {
  std::vector<std::string> names = named_syscalls(event, where, input_.modules);
  for (const std::string& n : names)
    if (options_.has_tracepoint && (!options_.has_tracepoint("syscalls", "sys_enter_" + n) ||
                                    (event.is_span && !options_.has_tracepoint("syscalls", "sys_exit_" + n))))
      return {};  // one missing: all stay on raw_syscalls, where the rule's test of id still holds
  return names;
}

Lowerer::SyscallVariant::SyscallVariant(Lowerer& l, const ast::EventDecl* event, const ast::Expr* where)
    : lowerer_(l) {
  if (!event) return;
  lowerer_.variant_syscalls_ = lowerer_.syscall_variant(*event, where);
  lowerer_.variant_event_ = lowerer_.variant_syscalls_.empty() ? nullptr : event;
}

Lowerer::SyscallVariant::~SyscallVariant() {
  lowerer_.variant_event_ = nullptr;
  lowerer_.variant_syscalls_.clear();
}

std::vector<int> Lowerer::call_entry_sites(const ast::EventDecl& event) {
  std::vector<int> sites;
  std::string origin = origin_of(event.name.range);
  for (const ast::ProbeSpec& p : merged_begins(event.begin, true))
    if (int s = site_for(p, event.module, false, origin); s >= 0) sites.push_back(s);
  return sites;
}

std::string Lowerer::python_frames_map(const std::string& origin) {
  ast::Ident libpython;
  libpython.name = "libpython";
  int library = library_index("python", libpython, false);
  for (const plan::MemoryReader& r : program.plan.memory_readers)
    if (r.library == library) return r.map;
  std::string map = "py_frames";
  program.plan.memory_readers.push_back({"cpython_frames", "pystack", map, library, origin});
  program.plan.maps.push_back({map,
                               plan::MapType::Hash,
                               4,
                               plan::kCpythonProcessValueSize,
                               options_.state_entries,
                               "processes whose Python frames are read",
                               {}});
  program.kernel_types.push_back("struct task_struct");
  return map;
}

int Lowerer::state_index(const ast::StateDecl& state) {
  if (auto it = states_.find(&state); it != states_.end()) return it->second;
  int index = static_cast<int>(program.states.size());
  states_[&state] = index;
  std::string name = state.module.empty() ? state.name.name : state.module + "." + state.name.name;
  if (!state.reader.name.empty()) {
    // Read from memory where it is tested: the runtime fills a map of the processes to read.
    plan::State st{map_names_.name(kReaderMap, state.name.name, declared_identity(state.module, state.name)),
                   name, false, false, static_cast<int>(program.plan.memory_readers.size())};
    program.plan.memory_readers.push_back({state.reader.name, name, st.map,
                                           library_index(state.module, state.reader_library, false),
                                           origin_of(state.reader.range)});
    program.plan.maps.push_back({st.map,
                                 plan::MapType::Hash,
                                 4,
                                 plan::kCpythonProcessValueSize,
                                 options_.state_entries,
                                 "processes " + name + " is read in",
                                 {}});
    program.states.push_back(std::move(st));
    program.kernel_types.push_back("struct task_struct");
    return index;
  }
  program.states.push_back(
      {map_names_.name(kStateMap, state.name.name, declared_identity(state.module, state.name)), name,
       state.scope == ast::StateScope::Process});
  program.plan.maps.push_back(
      {program.states.back().map, plan::MapType::LruHash, 4, 1, options_.state_entries, "state " + name, {}});
  for (const ast::StateTransition& t : state.transitions) {
    plan::Action action(t.sets ? plan::ActionKind::StateSet : plan::ActionKind::StateClear, index);
    if (t.when == ast::StateWhen::Event) {
      if (!t.resolved_event) continue;
      for (int s : event_sites(*t.resolved_event).end) program.sites[s].actions.push_back(action);
      continue;
    }
    ast::ProbeSpec probe;
    probe.kind = ast::ProbeKind::Call;
    probe.library = t.probe.library;
    probe.library_is_path = t.probe.library_is_path;
    probe.symbol = t.probe.symbol;
    probe.offset = t.probe.offset;
    probe.range = t.range;
    int s = site_for(probe, state.module, t.when == ast::StateWhen::Return, origin_of(t.range));
    if (s >= 0) program.sites[s].actions.push_back(action);
  }
  return index;
}

int Lowerer::correlation_index(const ast::EventDecl& event) {
  if (auto it = correlations_.find(&event); it != correlations_.end()) return it->second;
  int index = static_cast<int>(program.correlations.size());
  correlations_[&event] = index;
  std::string name = event.module.empty() ? event.name.name : event.module + "." + event.name.name;
  program.correlations.push_back(
      {map_names_.name(kAfterMap, event.name.name, declared_identity(event.module, event.name)), name, {}});
  program.plan.maps.push_back({program.correlations.back().map,
                               plan::MapType::LruHash,
                               4,
                               0,
                               options_.state_entries,
                               "last " + name + " per thread",
                               {}});
  // Marks are placed once every rule has said which of the event's fields it needs (run()).
  return index;
}

// `where pending > 60s`: the bound, or 0 when the rule does not test `pending`.
int64_t pending_bound(const ast::RuleDecl& rule) {
  const auto* cmp = rule.where ? std::get_if<ast::Binary>(&rule.where->node) : nullptr;
  if (!cmp || (cmp->op != ast::BinaryOp::Gt && cmp->op != ast::BinaryOp::Ge)) return 0;
  const auto* ref = std::get_if<ast::NameRef>(&cmp->lhs->node);
  const auto* lit = std::get_if<ast::IntLit>(&cmp->rhs->node);
  if (!ref || !lit || ref->kind != ast::RefKind::Builtin || ref->builtin != "pending") return 0;
  return lit->value;
}

void Lowerer::lower_rule(const ast::RuleDecl& rule, const std::string& file) {
  uint32_t id = static_cast<uint32_t>(program.plan.rules.size());
  plan::Rule r;
  r.id = id;
  r.name = rule.name.name;
  r.file = file;
  r.line = rule.range.valid() ? rule.range.file->line_col(rule.range.begin).line : 0;
  if (rule.alert && rule.alert->severity) r.severity = static_cast<plan::Severity>(*rule.alert->severity);
  if (rule.limit) {
    r.limit_count = rule.limit->count;
    r.limit_per_ns = rule.limit->per_ns;
    r.limit_per_process = ast::limit_per_process(rule);
  }
  if (rule.group) r.group_ns = rule.group->within_ns;
  for (const ast::Ident& w : rule.with) r.with.push_back({w.name, {}});
  if (rule.alert)
    for (const ast::MessagePart& part : rule.alert->message)
      r.message.push_back({part.is_hole, part.text, {}});
  if (rule.when) {
    r.windowed = true;
    program.plan.rules.push_back(std::move(r));
    lower_window(rule, id);
    return;
  }
  const ast::EventDecl* event = rule.resolved_event;
  if (!event) return;
  // `after` the same event would mark the variant's completions only: keep the event whole.
  bool self_after = rule.after && rule.after->resolved == event;
  SyscallVariant variant(*this, self_after ? nullptr : event, rule.where.get());
  r.event = event->module.empty() ? event->name.name : event->module + "." + event->name.name;
  if (r.message.empty()) {  // no message written: say what happened
    r.message.push_back({false, r.event + (event->is_span ? " took " : " fired"), {}});
    if (event->is_span) r.message.push_back({true, "duration", {}});
  }
  if (int64_t pending = pending_bound(rule); pending > 0 && event->is_span) {
    // A hang shows as a span that never ends: user space scans the in-flight map for it.
    r.pending_ns = pending;
    r.pending_map = program.spans.at(static_cast<size_t>(event_sites(*event).span)).map;
    program.plan.rules.push_back(std::move(r));
    return;
  }
  program.plan.rules.push_back(std::move(r));
  const EventSites& es = event_sites(*event);
  int correlation = -1;
  if (rule.after && rule.after->resolved) {
    correlation = correlation_index(*rule.after->resolved);
    event_sites(*rule.after->resolved);
  }
  plan::RuleCheck check = rule_check(rule, id, correlation);
  for (int s : es.end) {
    if (plan::Action* end = span_end_action(s, es)) {
      end->rules.push_back(check);
    } else {
      // A point: its rules run where it fires, before any state change at the same site.
      auto& actions = program.sites[static_cast<size_t>(s)].actions;
      auto first_other = std::find_if(actions.begin(), actions.end(), [](const plan::Action& a) {
        return a.kind != plan::ActionKind::Rules;
      });
      plan::Action rules(plan::ActionKind::Rules, -1);
      rules.rules.push_back(check);
      actions.insert(first_other, std::move(rules));
    }
  }
  for (const std::vector<int>* sites : {&es.begin, &es.end})
    for (int s : *sites) {
      auto& rules =
          program.plan.attachments[static_cast<size_t>(program.sites[static_cast<size_t>(s)].attachment)]
              .rules;
      if (std::find(rules.begin(), rules.end(), id) == rules.end()) rules.push_back(id);
    }
}

plan::Program Lowerer::run() {
  program.plan.ringbuf_bytes = options_.ringbuf_bytes;
  program.plan.target_tgid = options_.target_pid;
  program.plan.target_cgroup = options_.target_cgroup;
  // Only where known: these have no perf tracepoint fallback built beside them.
  program.plan.raw_sched_programs =
      options_.has_feature && options_.has_feature(plan::Feature::RawTracepoint);
  // What this kernel cannot run (compiler/check/availability.hpp) is listed, not lowered.
  auto unavailable = [&](const std::string& name, bool metric, const SourceRange& range,
                         const std::string& why) {
    program.plan.unavailable_rules.push_back({name, metric, origin_of(range), why});
  };
  for (const ast::File* file : input_.rule_files)
    for (const ast::Decl& d : file->decls)
      if (const auto* metric = std::get_if<ast::MetricDecl>(&d)) {
        if (metric->unavailable.empty())
          lower_metric(*metric);
        else
          unavailable(metric->name.name, true, metric->range, metric->unavailable);
      }
  for (const ast::File* file : input_.rule_files)
    for (const ast::Decl& d : file->decls)
      if (const auto* rule = std::get_if<ast::RuleDecl>(&d)) {
        if (rule->unavailable.empty())
          lower_rule(*rule, file->source->shown());
        else
          unavailable(rule->name.name, false, rule->range, rule->unavailable);
      }
  // Correlation marks: when the `after` event completes, remember when (and the fields rules print).
  for (auto& [event, index] : correlations_) {
    const EventSites& es = event_sites(*event);
    for (int s : es.end) {
      if (plan::Action* end = span_end_action(s, es))
        end->marks.push_back(index);
      else
        program.sites[static_cast<size_t>(s)].actions.push_back(
            plan::Action(plan::ActionKind::CorrelationMark, index));
    }
  }
  // Size the in-flight maps' values now that every saved slot is known.
  for (plan::Map& m : program.plan.maps)
    for (const plan::Span& s : program.spans)
      if (m.name == s.map)
        m.value_size = static_cast<uint32_t>(24 + 8 * s.saves.size());  // start, generation, ip, saves
  for (plan::Map& m : program.plan.maps)
    for (const plan::Correlation& c : program.correlations)
      if (m.name == c.map) m.value_size = static_cast<uint32_t>(8 + 8 * c.saves.size());
  std::vector<bool> keyed(program.spans.size(), false);
  for (const auto& [key, es] : events_)
    if (es.span >= 0) keyed[static_cast<size_t>(es.span)] = es.keyed;
  place_begin_filters(program, keyed);
  if (options_.task_storage) use_task_storage(program);
  program.plan.ringbuf_bytes = ring_bytes_for(program.plan.records, options_.ringbuf_bytes);
  plan::resolve_values(program.plan);  // holes and `with` items by field index, once the records are final
  lower_outputs(input_.rule_files, program.plan);
  lower_scope(input_, options_, program);
  add_tracepoint_fallbacks(program, raw_sites_);  // every action placed: they copy them
  if (options_.uprobe_session && options_.uprobe_session())
    use_uprobe_sessions();  // last: it removes return sites
  describe_map_contents(program);
  std::sort(program.kernel_types.begin(), program.kernel_types.end());
  program.kernel_types.erase(std::unique(program.kernel_types.begin(), program.kernel_types.end()),
                             program.kernel_types.end());
  return std::move(program);
}

uint32_t ring_bytes_for(const std::vector<plan::Record>& records, uint32_t requested) {
  uint32_t largest = 0;
  for (const plan::Record& r : records) largest = std::max(largest, r.size);
  // Room for kRingRecords of the largest record (stack copies make records of 8 KiB and more),
  // so that a burst is not dropped for want of a ring sized for small records.
  uint64_t needed = static_cast<uint64_t>(largest + 8) * kRingRecords;  // + the ring's 8-byte header
  uint64_t bytes = requested;
  while (bytes < needed && bytes < (1ull << 30)) bytes <<= 1;
  return static_cast<uint32_t>(bytes);
}

plan::Program lower(const Input& input, const Options& options) {
  return Lowerer(input, options).run();
}

}  // namespace seam::lower
