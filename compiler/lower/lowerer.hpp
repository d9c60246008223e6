#pragma once
// Internal to lowering: the state kept while one Input is lowered. Split across
// lower.cpp (events, sites, states, correlations), lower_expr.cpp (expressions to kernel
// predicates) and record_layout.cpp (what each rule's record carries).
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "compiler/lower/lower.hpp"
#include "compiler/lower/map_names.hpp"

namespace seam::lower {

// Where an event's values can be read: at its begin site (arguments) or its end site (results).
struct EventSites {
  bool is_span = false;
  bool is_call = false;    // entry/return of a function (uprobe/uretprobe)
  std::vector<int> begin;  // site indexes
  std::vector<int> end;    // span end sites; for a point, same as begin
  int span = -1;           // index into Program::spans
  ast::ProbeKind begin_kind = ast::ProbeKind::Call;
  ast::ProbeKind end_kind = ast::ProbeKind::Call;
  bool keyed = false;  // a begin..end pair matched by a `key`: begin and end run on different threads
};

// A keyed span begun by the probe of an `after` event, and the event's field that is its key
// (lower_span_key.cpp); span is null when the event begins none.
struct SpanKeyedBy {
  const ast::EventDecl* span = nullptr;
  const ast::FieldDecl* field = nullptr;
};

class Lowerer {
 public:
  Lowerer(const Input& input, const Options& options) : input_(input), options_(options) {}
  plan::Program run();

  // ---- lower.cpp
  const EventSites& event_sites(const ast::EventDecl& event);
  // The entry programs of a function-call event alone (no span, no return probe): for what is
  // known at the call's entry (a count by the caller). Shared with event_sites()'s entries.
  std::vector<int> call_entry_sites(const ast::EventDecl& event);
  int state_index(const ast::StateDecl& state);
  // The process map a `pystack` walk reads (plan::CpythonProcess): the python module's
  // cpython_gil reader's, or a reader of its own ("cpython_frames") when no rule tests gil_held.
  // `origin`: the first rule that needs it, for the reader's notices.
  std::string python_frames_map(const std::string& origin);
  int correlation_index(const ast::EventDecl& event);
  int library_index(const std::string& module, const ast::Ident& alias, bool is_path);
  // `context`: the C type of the program's context when it is not the probe's own (a syscall's
  // tracepoint read as syscalls.any: syscall_tracepoints.hpp); such a site is never shared with
  // one of the probe's own type.
  int site_for(const ast::ProbeSpec& probe, const std::string& module, bool at_return,
               const std::string& origin, const std::string& context = {});
  // The action at `site` that ends `es`'s span, where what completes with it (rules, marks,
  // metrics) runs while its saved values exist; nullptr for a point.
  plan::Action* span_end_action(int site, const EventSites& es);
  void unsupported(const SourceRange& where, const std::string& what);

  // ---- lower_expr.cpp
  // The kernel value of a field of `event` read at one of its sites (`at_end`: after completion).
  // `element` >= 0: that element of an array field.
  plan::Value field_value(const ast::EventDecl& event, const ast::FieldDecl& field, bool at_end,
                          int element = -1);
  // An integer (or string constant) expression: literals, names, arithmetic.
  plan::Value expr_value(const ast::Expr& e, const ast::RuleDecl& rule, int correlation);
  // A span's `key EXPR`: a field read directly from the probe it follows.
  plan::Value key_value(const ast::EventDecl& event, const ast::Expr& key, ast::ProbeKind probe_kind);
  plan::Value name_value(const ast::NameRef& ref, const ast::RuleDecl& rule, int correlation);
  // Keyed pairs: the first of the 4 span slots holding the begin's thread (saved on first use).
  int begin_thread_slot(const ast::EventDecl& event);
  // pid, tid, cgroup or comm of the thread that began a keyed pair (`event`'s rules run at its end).
  plan::Value begin_thread_value(const ast::EventDecl& event, const std::string& builtin);
  plan::Cond condition(const ast::Expr& expr, const ast::RuleDecl& rule, int correlation);
  plan::Cond identity_condition(const ast::NameRef& ref, const ast::Binary& bin, const ast::RuleDecl& rule);

  // ---- lower_metric.cpp
  void lower_metric(const ast::MetricDecl& metric);
  void lower_window(const ast::RuleDecl& rule, uint32_t rule_id);

  // ---- lower_span_key.cpp
  SpanKeyedBy span_begun_by(const ast::EventDecl& after);
  // `after E within D` where E begins a keyed span: and that span is still in flight for E's key.
  void require_in_flight(plan::Cond& recent, const ast::EventDecl& after, const ast::RuleDecl& rule,
                         int correlation);
  // Metric `live` (index `live_index`) by the span's key alone: its series end with their span.
  void retire_with_span(const plan::Metric& live, int live_index, const ast::EventDecl& span);
  // ---- record_layout.cpp
  plan::RuleCheck rule_check(const ast::RuleDecl& rule, uint32_t rule_id, int correlation);

  // ---- uprobe_session.cpp
  // Turns each qualifying call span's entry and return into one uprobe session site
  // (uprobe_session.cpp). Runs once every action is placed; removes the return sites.
  void use_uprobe_sessions();

  // ---- lower_enum.cpp
  // Marks `record`'s field `field` as printed by the names of enum `enum_name`, whose table the
  // plan then carries.
  void name_enum(plan::Record& record, const std::string& field, const std::string& enum_name);
  // Puts enum `enum_name`'s table (value -> name) in the plan, once.
  void add_enum_table(const std::string& enum_name);

  plan::Program program;

 private:
  // While a rule or metric on a raw_syscalls event that names its syscalls is lowered, its event
  // reads from those syscalls' tracepoints (syscall_tracepoints.hpp): event_sites() of that
  // event is the variant for them, shared by every reader naming the same syscalls.
  class SyscallVariant {
   public:
    SyscallVariant(Lowerer& l, const ast::EventDecl* event, const ast::Expr* where);
    ~SyscallVariant();
    SyscallVariant(const SyscallVariant&) = delete;
    SyscallVariant& operator=(const SyscallVariant&) = delete;

   private:
    Lowerer& lowerer_;
  };
  // The syscalls `where` names, when every one has its own tracepoints here; else empty.
  std::vector<std::string> syscall_variant(const ast::EventDecl& event, const ast::Expr* where) const;
  void lower_rule(const ast::RuleDecl& rule, const std::string& file);
  const ast::LibraryDecl* find_library(const std::string& module, const std::string& alias) const;

  const Input& input_;
  const Options& options_;
  // By event and the syscalls of its variant ("" for the event's own probes).
  std::map<std::pair<const ast::EventDecl*, std::string>, EventSites> events_;
  const ast::EventDecl* variant_event_ = nullptr;
  // While event_sites() places an event that reads only id, args and ret from raw_syscalls, or
  // only fields of tracepoints with a raw form: its sites are raw tracepoint programs
  // (raw_syscall_tracepoints.hpp, raw_tracepoint_forms.hpp).
  bool raw_event_ = false;
  std::vector<int> raw_sites_;  // those sites, each given a perf tracepoint fallback in run()
  std::vector<std::string> variant_syscalls_;
  std::map<const ast::StateDecl*, int> states_;
  std::map<const ast::EventDecl*, int> correlations_;
  std::map<const ast::MetricDecl*, int> metrics_;
  std::map<std::string, int> libraries_;
  std::map<std::string, int> sites_;
  MapNamer map_names_;  // span, state, `after` and metric maps, by what they serve (map_names.hpp)
  std::set<const ast::FieldDecl*> computing_;  // computed fields being lowered (to stop self-reference)
};

inline constexpr uint32_t kIdentityMapEntries = 16384;  // cgroups with a test that holds
// container, container_id, pod or namespace: a test of the process's identity (identity_condition).
const ast::NameRef* identity_name(const ast::Expr& e);

// `parts[0] && parts[1] && ...` (True when empty), in that order: C's && short-circuits.
plan::Cond all_of(std::vector<plan::Cond> parts);

plan::FieldType field_type(const ast::Type& type);
plan::FieldUnit field_unit(const ast::Type& type);
std::string origin_of(const SourceRange& range);
std::string declared_identity(const std::string& module, const ast::Ident& name);

}  // namespace seam::lower
