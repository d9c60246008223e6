#pragma once
// The compiler-side half of the probe plan: what each BPF program does when its probe fires.
// Lowering fills it from the checked AST; codegen expands it with bpf-templates/. The runtime
// never sees it (it works from plan.hpp's attachments, maps and record layouts alone).
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/plan/plan.hpp"

namespace seam::plan {

// A value the kernel program can compute where it runs.
enum class ValueKind {
  Const,     // integer constant (int_value)
  StrConst,  // string constant (str_value), only in string comparisons
  Arg,       // uprobe/kprobe argument register `index` (0-based)
  Ret,       // return value register
  TpField,   // tracepoint context field `name` (struct trace_event_raw_<tp name>)
  Saved,     // a value saved at span begin: slot `index` of the span's in-flight value
  Duration,  // now - span start
  Pid,
  Tid,
  Uid,
  Cgroup,
  Cpu,
  Time,
  Comm,        // the current task's name (16 bytes), only in string comparisons and records
  Correlated,  // slot `index` of correlation `corr` (the `after` event's saved fields)
  // The thread that began a keyed pair span, saved in its in-flight value from slot `index`:
  // at the begin `name` is the slot's content (pid_tgid, cgroup, comm); at the end it is the
  // builtin read back (pid, tid, cgroup, comm).
  BeginThread,
  Arith,  // `operands[0] op operands[1]`, op one of + - * / % << >> & ^ | (64-bit, `type`'s sign)
  Table,  // operands[0] is the index; operands[1..] the constant entries (0 past the end)
};

struct Value {
  ValueKind kind = ValueKind::Const;
  int index = 0;
  int corr = -1;
  std::string name;
  int64_t int_value = 0;
  std::string str_value;
  FieldType type = FieldType::U64;  // how to read/cast it
  int element = -1;                 // TpField: the element of an array field (`args[1]`)
  std::string op;                   // Arith
  std::vector<Value> operands;      // Arith: two
};

enum class CondOp {
  True,
  Not,
  And,
  Or,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  StrEq,
  StrPrefix,
  StateHeld,
  CorrelatedWithin,
  FdIs,
  IdentityHas
};  // FdIs: file descriptor `lhs` of the current process names a file matching `rhs`
// IdentityHas: the cgroup `lhs` has bit `index` (Plan::identity_tests) set in the identity map

// A predicate evaluated in the kernel. Leaves compare two Values; StateHeld tests state `index`;
// CorrelatedWithin tests that correlation `index` was marked at most `within_ns` ago on this thread.
struct Cond {
  CondOp op = CondOp::True;
  std::vector<Cond> kids;  // Not: 1, And/Or: 2
  Value lhs, rhs;
  bool is_signed = false;
  int index = -1;
  int64_t within_ns = 0;
  int span = -1;  // CorrelatedWithin: and span `span` is in flight for the key `lhs` (lower_span_key.cpp)
};

// One rule evaluated at a site: if `when` holds, reserve a record and fill it.
struct RecordFill {
  Field field;   // layout of the value in the record (offset, size, type)
  Value source;  // Arg/Ret/Saved/Duration/Correlated/...; UStack/KStack fields ignore it
};

struct RuleCheck {
  uint32_t rule_id = 0;
  Cond when;
  uint32_t record_size = 0;
  std::vector<RecordFill> fills;
  bool ustack_from_saved_ip = false;  // frame 0 is the probed function (saved at begin)
  int thread_slot = -1;  // >= 0: the record header's pid, tid, cgroup, comm are the begin's (slots from here)
  std::string origin;    // "file:line" for #line
  std::string origin_file;
  uint32_t origin_line = 0;
};

// Spans in flight: a per-key LRU map from key to {start time, saved values}.
struct Span {
  std::string map;           // map name
  std::string name;          // "cuda.stream_sync"
  std::vector<Value> saves;  // values saved at begin (slot i = saves[i])
  bool save_ip = false;      // save the probed function's address for ustack frame 0
  int thread_slot = -1;      // keyed pairs: slots [i, i+4) hold the begin's pid_tgid, cgroup, comm
  bool task_local = false;   // keyed by thread and never scanned: task-local storage (lower/task_storage.hpp)
  // The begin stores (time, saved values) only when this holds: the OR, over every rule and
  // metric that reads the span, of its conjuncts known at the begin (compiler/lower/begin_filter.hpp).
  // True: some reader needs every begin; `never`: nothing reads the span.
  Cond begin_when;
  bool never = false;
};

struct State {
  std::string map;
  std::string name;
  bool per_process = false;
  bool task_local = false;  // per thread, in task-local storage
  int memory_reader = -1;   // >= 0: read from memory (Plan::memory_readers), `map` is its process map
};

// `after EVENT within D`: when EVENT completes, remember the time (and fields) per thread.
struct Correlation {
  std::string map;
  std::string event;
  std::vector<Value> saves;
  bool task_local = false;  // in task-local storage
};

// A metric updated where its event completes: the key's labels and the value, as kernel values.
struct MetricUpdate {
  int metric = -1;            // index into Plan::metrics
  Cond when;                  // the metric's `where`
  std::vector<Value> labels;  // in Metric::labels order; Comm labels are read into the key
  Value value;                // sum / hist: the value; count: unused
  // At a span's end: the series of metric `retire` labelled `key` ends; its count (or sum) is
  // observed into this update's `metric` (a histogram without labels) and the series deleted.
  int retire = -1;
  Value key;
};

enum class ActionKind { SpanBegin, SpanEnd, StateSet, StateClear, CorrelationMark, Rules, MetricUpdate };

struct Action {
  Action() = default;
  Action(ActionKind k, int i) : kind(k), index(i) {}
  ActionKind kind = ActionKind::Rules;
  int index = -1;                // span, state or correlation index
  Value key;                     // SpanBegin/SpanEnd: the key (default Tid)
  std::vector<RuleCheck> rules;  // SpanEnd (evaluated after the span's duration is known) and Rules
  std::vector<int> marks;        // SpanEnd: correlations to mark while the span's saved values exist
  std::vector<int> metrics;      // SpanEnd: metric updates (Program::metric_updates) at completion
};

// The ELF section of a uprobe session program (kernel 6.13+): one program run at a function's
// entry and, unless the entry returns non-zero, at its return (compiler/lower/uprobe_session.cpp).
// libbpf 1.1 does not know it: the loader gives it its program type and attach type
// (runtime/load/loaded_object.cpp) and links it as a uprobe at the function's entry.
inline constexpr const char* kUprobeSessionSection = "uprobe.session";
// A session program asks whether it runs at the return with the kfunc bpf_session_is_return().
// The generated C calls it as this helper id, which no kernel has; the loader rewrites each such
// call into the kfunc's call (runtime/load/session_kfunc.hpp). Declared as an extern __ksym,
// libbpf 1.1 would parse the kernel's whole BTF at every load to find one id (about 13 ms).
inline constexpr int32_t kSessionIsReturnPlaceholder = 0x5e55;

// The program attached at one probe site; `attachment` indexes Plan::attachments.
struct Site {
  int attachment = -1;
  std::string section;          // ELF section: "uprobe", "uretprobe", "tracepoint/sched/sched_switch", ...
  std::string context_type;     // C type of ctx: "struct pt_regs", "struct trace_event_raw_sched_switch", ...
  std::vector<Action> actions;  // in order
  // A uprobe session site (section kUprobeSessionSection): `actions` run at the entry up to and including
  // the SpanBegin of span `session_span`, the rest at the return. When the lock that the
  // `cpython_gil` reader map `early_end_map` describes reads free at the entry (the call will not
  // wait: compiler/lower/uprobe_session.cpp), the span ends there with duration 0 and the entry
  // asks the kernel not to run the return.
  int session_span = -1;
  std::string early_end_map;
};

struct Program {
  Plan plan;
  std::vector<Span> spans;
  std::vector<State> states;
  std::vector<Correlation> correlations;
  std::vector<Site> sites;
  std::vector<MetricUpdate> metric_updates;
  std::vector<std::string> kernel_types;  // BTF types the generated C needs (pt_regs, trace_event_raw_*)
  std::vector<std::string> unsupported;   // constructs lowering could not place in the kernel, with why
};

}  // namespace seam::plan
