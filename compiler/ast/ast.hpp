#pragma once
// The seam AST. The parser builds it; the checker resolves names and fills the `resolved`
// and `type` slots (never changing the tree's shape); lowering reads it to build a probe plan.
// Every node keeps the SourceRange it came from, so any later stage can point at the rule text.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "compiler/source/source_file.hpp"

namespace seam::ast {

struct Ident {
  std::string name;
  SourceRange range;
};

// `cuda.stream_sync`, `gil_held`, `cuda.malloc.size`: one or more dotted parts.
struct QualName {
  std::vector<Ident> parts;
  SourceRange range;
  std::string str() const;  // parts joined with '.'
};

// ---------------------------------------------------------------- types and units
enum class Unit { None, Duration, Bytes };

// The value kinds of the language. Field declarations name them with the type keywords
// ptr, bool, str, i8..i64, u8..u64, bytes (u64 in bytes), duration (u64 in ns).
enum class TypeKind { Unknown, Int, Bool, Str, Ptr, Stack, Metric, State };

struct Type {
  TypeKind kind = TypeKind::Unknown;
  Unit unit = Unit::None;
  uint8_t bits = 64;       // Int and Ptr: 8, 16, 32 or 64
  bool is_signed = false;  // Int
  std::string enum_name;   // Int values that print by name (from `seam stdlib gen`), else empty

  static Type integer(uint8_t bits, bool is_signed, Unit unit = Unit::None) {
    return Type{TypeKind::Int, unit, bits, is_signed, {}};
  }
  static Type of(TypeKind k) { return Type{k, Unit::None, 64, false, {}}; }
  bool operator==(const Type&) const = default;
};

// A type as written in a declaration: `size: bytes`, `ret: i32`.
struct TypeName {
  Ident name;
  Type type;               // filled by the parser for known keywords; Unknown otherwise (checker reports)
  uint32_t array_len = 0;  // `u64[6]`: an array of 6 (tracepoint fields only); 0: a scalar
};

// ---------------------------------------------------------------- expressions
struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// 10ms, 4KiB, 42: value normalised to the base unit (ns, bytes).
struct IntLit {
  int64_t value = 0;
  Unit unit = Unit::None;
  std::string suffix;  // as written: "ms", "KiB", "" (for messages and hints)
};
struct StrLit {
  std::string value;  // unescaped
};
struct BoolLit {
  bool value = false;
};

// What a name in an expression turned out to be, set by the checker.
enum class RefKind {
  Unresolved,
  EventField,  // an argument or result of the rule's event (`size`, `ret`)
  Builtin,     // pid tid comm cgroup uid duration pending ret time cpu
  State,       // a state tested with `while`
  OtherEvent,  // a field of the correlated event: `cuda.malloc.size`
  Metric,      // a metric named in a windowed `when`
  Value,       // `value`, the result of a windowed rule's aggregate
  Severity,    // `severity` in a route condition
  Rule,        // `rule` in a route condition
};

struct FieldDecl;
struct StateDecl;
struct EventDecl;
struct MetricDecl;

struct NameRef {
  QualName name;
  RefKind kind = RefKind::Unresolved;
  const FieldDecl* field = nullptr;  // EventField, OtherEvent
  const StateDecl* state = nullptr;  // State
  const EventDecl* event = nullptr;  // OtherEvent: the correlated event
  const MetricDecl* metric = nullptr;
  std::string builtin;  // Builtin: its name
  int64_t index = -1;   // `args[1]`: the element of an array field; -1 when not indexed
  SourceRange index_range;
};

enum class UnaryOp { Not, Neg };
enum class BinaryOp {
  Or,
  And,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  StartsWith,
  Add,
  Sub,
  Mul,
  Div,
  Mod,
  Shl,
  Shr,
  BitAnd,
  BitXor,
  BitOr
};
// Add .. BitOr: integer arithmetic (the rest are conditions).
inline bool is_arithmetic(BinaryOp op) {
  return op >= BinaryOp::Add;
}
const char* to_string(BinaryOp op);  // "+", "<<", ...

struct Unary {
  UnaryOp op;
  ExprPtr operand;
};
struct Binary {
  BinaryOp op;
  ExprPtr lhs, rhs;
};
// p99(sync_latency) over 1m, rate(x) over 10s: only in windowed `when` conditions.
struct Call {
  Ident function;
  std::vector<ExprPtr> args;
  ExprPtr window;  // the `over DURATION` that follows the call, if any
};

// `[1B, 1B, 4B][datatype]`: the entry at a computed index (0 when past the end), for small
// lookups such as the size of a datatype. Entries are number literals of one unit.
struct Table {
  std::vector<ExprPtr> entries;
  ExprPtr index;
};

struct Expr {
  SourceRange range;
  std::variant<IntLit, StrLit, BoolLit, NameRef, Unary, Binary, Call, Table> node;
  Type type;  // set by the checker
};

// ---------------------------------------------------------------- probes
enum class ProbeKind {
  Call,           // lib:symbol in a span: entry .. return of the function
  Uprobe,         // uprobe lib:symbol[+off]
  Uretprobe,      // uretprobe lib:symbol
  Usdt,           // usdt lib:provider:name
  Tracepoint,     // tracepoint category:name
  RawTracepoint,  // raw_tracepoint name
  Kprobe,         // kprobe function[+off]
  Kretprobe,      // kretprobe function
  Fentry,         // fentry function
  Fexit,          // fexit function
  Perf,           // perf event at 99hz | every N
  Interval,       // interval 1s
};

struct ProbeSpec {
  ProbeKind kind = ProbeKind::Call;
  SourceRange range;
  // Uprobe family and Usdt: the library alias, or a quoted path when `library_is_path`.
  Ident library;
  bool library_is_path = false;
  std::string symbol;  // function (uprobe, kprobe, fentry), raw tracepoint name, perf event name
  SourceRange symbol_range;
  uint64_t offset = 0;      // `+0x10`
  std::string category;     // tracepoint category; usdt provider
  std::string name;         // tracepoint name; usdt probe name
  uint64_t period = 0;      // perf: `every N` events
  uint64_t frequency = 0;   // perf: `at N hz`
  int64_t interval_ns = 0;  // interval
  ExprPtr key;              // begin..end pairs: what matches an end to its begin (default: tid)
};

// ---------------------------------------------------------------- declarations
struct FieldDecl {
  Ident name;
  TypeName type;
  int index = 0;           // argument position (0-based) for args; 0 for the return value
  bool is_result = false;  // declared after `->`
  std::string doc;         // trailing `#` comment, if any, for docs/stdlib.md
  // `bytes: bytes = count * [...][datatype]`: computed from the event's other fields, not read
  // from an argument (takes no argument position). Shared: FieldDecls are copied.
  std::shared_ptr<Expr> computed;
};

struct ModuleDecl {
  Ident name;
  std::string doc;
};

struct UseDecl {
  std::vector<Ident> modules;
  SourceRange range;
};

struct LibraryPattern {
  bool executable = false;  // `exe "python3*"`: the program itself (statically linked)
  std::string glob;
  SourceRange range;
};

struct LibraryDecl {
  Ident name;
  std::vector<LibraryPattern> patterns;
  std::string doc;
  bool workload = false;  // `workload`: a process mapping it is an inference workload (scope workload)
};

// `scope KIND ["ARG"]`: which processes a rule file's rules run for (compiler/check/scope.cpp).
struct ScopeDecl {
  Ident kind;            // workload, host, cgroup, comm (checked, not parsed)
  std::string argument;  // the cgroup path or comm pattern; empty when none was written
  bool has_argument = false;
  SourceRange range, argument_range;
};

struct EventDecl {
  bool is_span = false;  // span (has duration) or point
  Ident name;
  std::vector<ProbeSpec> begin;   // alternatives, `a | b`
  std::vector<ProbeSpec> end;     // only for `begin .. end` spans; empty for Call spans and points
  std::vector<FieldDecl> fields;  // arguments, then results
  std::string doc;
  std::string module;  // the declaring module's name, set by the parser
};

struct AliasDecl {
  Ident name;
  QualName target;
  const EventDecl* resolved = nullptr;  // checker
  std::string module;
};

enum class StateScope { Thread, Process };
enum class StateWhen { Entry, Return, Event };

// `set on return of take_gil`, `clear on entry of drop_gil`, `set on cuda.malloc`
struct StateTransition {
  bool sets = true;  // set or clear
  StateWhen when = StateWhen::Entry;
  ProbeSpec probe;  // Entry / Return: a function, `lib:sym` or a bare symbol of the module's library
  QualName event;   // Event: an event name
  const EventDecl* resolved_event = nullptr;  // checker
  SourceRange range;
};

struct StateDecl {
  Ident name;
  StateScope scope = StateScope::Thread;
  std::vector<StateTransition> transitions;
  // `= READER of LIBRARY`: read from the process's memory at the test (reader empty: probes).
  Ident reader;
  Ident reader_library;
  std::string doc;
  std::string module;
};

enum class Severity { Info, Warning, Error, Critical };

// A message with `{field}` holes; the parser splits it, the checker resolves each hole.
struct MessagePart {
  bool is_hole = false;
  std::string text;   // literal text, or the hole's name as written
  SourceRange range;  // of the hole's name inside the string
  NameRef ref;        // hole: resolved by the checker
};

struct Alert {
  std::optional<Severity> severity;  // default warning
  Ident severity_word;               // as written, for diagnostics
  std::vector<MessagePart> message;  // empty: a default message is made from the rule
  SourceRange message_range;
  SourceRange range;
};

struct Limit {
  int64_t count = 0;
  int64_t per_ns = 0;
  SourceRange range;
  std::optional<Ident> scope;  // `per process` (the checker accepts only that word)
};

// `group within D`
struct Group {
  int64_t within_ns = 0;
  SourceRange range;
};

struct Correlation {
  QualName event;  // after EVENT within DURATION
  const EventDecl* resolved = nullptr;
  ExprPtr within;
  SourceRange range;
};

struct RuleDecl {
  Ident name;  // shorthand rules get a generated name: <event>_L<line>
  bool shorthand = false;
  SourceRange range;
  // Event rules: `on EVENT [where EXPR] [while EXPR] [after EVENT within DUR]`
  std::optional<QualName> event;
  const EventDecl* resolved_event = nullptr;  // checker (aliases followed)
  ExprPtr where;
  ExprPtr while_;
  std::optional<Correlation> after;
  // Windowed rules: `when p99(metric) over 1m > 50ms` (the window sits in the Call)
  ExprPtr when;
  std::optional<Alert> alert;
  std::vector<Ident> with;  // ustack kstack pid tid comm cgroup and event fields
  std::optional<Limit> limit;
  std::optional<Group> group;
  std::string doc;
  std::vector<Ident> tags;       // `tags syscalls, noisy`: what `disable tag T` selects
  std::vector<ExprPtr> excepts;  // `except comm == "batchjob"`: joined to `where` by tuning
  std::string unavailable;       // why this kernel cannot run it (compiler/check/availability.hpp); "" runs
};

// ---------------------------------------------------------------- tuning (compiler/check/tuning.*)
// `override rule futex_wait_slow threshold 5ms except comm == "batchjob" alert warning`: changes
// a rule declared in another file (the shipped pack) without editing it.
struct OverrideDecl {
  Ident rule;
  SourceRange range;
  std::optional<bool> enabled;  // `disable` / `enable`
  std::optional<SourceRange> enabled_range;
  ExprPtr threshold;             // `threshold 5ms`: the rule's `duration > X` gets this X
  ExprPtr where;                 // `where EXPR`: replaces the rule's condition
  std::vector<ExprPtr> excepts;  // added to the rule's own
  std::optional<Alert> alert;    // severity (and the message, when one is given)
  std::optional<Limit> limit;
  std::vector<Ident> tags;  // added to the rule's own
};

// `disable rule a, b` / `enable tag noisy`
struct ToggleDecl {
  bool enable = false;
  bool by_tag = false;
  std::vector<Ident> names;
  SourceRange range;
};

// `list waiting = (futex, poll, 3, "x")`: items for `x in waiting` (expanded by the parser).
struct ListDecl {
  Ident name;
  std::vector<ExprPtr> items;
  SourceRange range;
  std::string doc;
};

enum class MetricKind { Count, Sum, Hist };

struct MetricDecl {
  Ident name;
  QualName event;
  const EventDecl* resolved_event = nullptr;
  ExprPtr where;
  ExprPtr while_;                    // `while python.gil_held`: counted only while the state holds
  std::optional<Correlation> after;  // `after cuda.malloc within 1ms`: only right after that event
  MetricKind kind = MetricKind::Count;
  ExprPtr value;  // sum and hist: the field
  std::vector<Ident> by;
  SourceRange range;
  std::string doc;
  std::string unavailable;  // why this kernel cannot run it (compiler/check/availability.hpp); "" runs
};

enum class OutputKind { Stdout, Json, Webhook };

struct OutputDecl {
  Ident name;
  OutputKind kind = OutputKind::Stdout;
  std::string target;  // path or URL
  SourceRange target_range;
  std::optional<Ident> format;  // webhook: json | alertmanager
  SourceRange range;
};

struct RouteDecl {
  ExprPtr condition;  // over `severity` and `rule`
  std::vector<Ident> outputs;
  SourceRange range;
};

// `enum cudaMemcpyKind (cudaMemcpyHostToHost = 0, ...)`: the names of an integer field's values.
struct EnumValue {
  std::string name;
  int64_t value = 0;
  SourceRange range;
};
struct EnumDecl {
  Ident name;
  std::vector<EnumValue> values;
  std::string doc;
  std::string module;
};

using Decl =
    std::variant<ModuleDecl, UseDecl, LibraryDecl, EventDecl, AliasDecl, StateDecl, RuleDecl, MetricDecl,
                 OutputDecl, RouteDecl, EnumDecl, OverrideDecl, ToggleDecl, ListDecl, ScopeDecl>;

// One parsed file. The SourceFile it points into must outlive it.
struct File {
  const SourceFile* source = nullptr;
  std::vector<Decl> decls;
  // The module this file declares (`module cuda` as its first declaration), if any.
  const ModuleDecl* module() const;
};

const char* to_string(ProbeKind k);
const char* to_string(Severity s);
const char* to_string(Unit u);
std::string to_string(const Type& t);

}  // namespace seam::ast
