#pragma once
// The probe plan: the contract between the compiler and the runtime. Lowering builds it from
// the checked AST; codegen turns it into BPF C; the runtime attaches what it names and decodes
// records with its layout alone (to_json/from_json below), never with rule-specific code.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compiler/plan/hist_layout.hpp"
#include "compiler/plan/record_header.hpp"

namespace seam::plan {

// Where a uprobe's library comes from: file-name globs on the host and in containers.
struct LibraryPattern {
  bool executable = false;  // match the main program's file (statically linked interpreters)
  std::string glob;         // matched against the file's base name: "libcudart.so*"
};

struct Library {
  std::string name;  // the alias in its module: "cudart"
  std::string module;
  std::vector<LibraryPattern> patterns;
  std::string path;  // set instead of patterns when a probe names a file by path
};

// Kernel facilities a program needs; the runtime's feature probe says which this kernel has.
enum class Feature { Uprobe, Tracepoint, RawTracepoint, TpBtf, Kprobe, Fentry, PerfEvent, Usdt };

enum class AttachKind {
  Uprobe,
  Uretprobe,
  Usdt,
  Tracepoint,
  RawTracepoint,
  TpBtf,
  Kprobe,
  Kretprobe,
  Fentry,
  Fexit,
  PerfEvent,
};

// One BPF program and everything it is attached to.
struct Attachment {
  std::string program;  // the function name in the generated C (its ELF section decides the type)
  AttachKind kind = AttachKind::Uprobe;
  Feature feature = Feature::Uprobe;
  // Uprobe family: the library (index into Plan::libraries) and the symbols to try; every
  // symbol that resolves is attached once per distinct address (aliases share one probe).
  int library = -1;
  std::vector<std::string> symbols;
  uint64_t offset = 0;
  std::string category,
      name;  // tracepoint category:name; usdt provider:name; raw_tp/kprobe/fentry target in name
  uint64_t perf_type = 0, perf_config = 0, perf_period = 0, perf_frequency = 0;
  // When this program cannot attach here, `fallback` names the program to try instead
  // (fentry → kprobe → tracepoint); empty: the rules in `rules` are reported unavailable.
  std::string fallback;
  bool is_fallback = false;     // attached only when the program whose fallback it is fails
  std::vector<uint32_t> rules;  // rule ids that depend on this program (for messages)
  std::string origin;           // "file:line" of the declaration, for messages
  // The spans this program begins, each with when its begin stores anything (the begin-time
  // filter, compiler/lower/begin_filter.hpp): "syscalls.any when id == 16", "cuda.sync always".
  // For people (`seam compile --emit layout`); the program itself already tests it.
  std::vector<std::string> span_begins;
};

enum class FieldType {
  U8,
  U16,
  U32,
  U64,
  I8,
  I16,
  I32,
  I64,
  Ptr,
  Bool,
  Str,
  UStack,
  KStack,
  UStackCopy,
  PyStack
};
enum class FieldUnit { None, Ns, Bytes };

struct Field {
  std::string name;
  FieldType type = FieldType::U64;
  FieldUnit unit = FieldUnit::None;
  uint32_t offset = 0;    // bytes from the start of the record
  uint32_t size = 0;      // bytes; Str: the char array; stacks: u64 count + u64 ips[]; UStackCopy below
  std::string enum_name;  // values that print by name
};

// A UStackCopy field ("ustack_copy", beside "ustack") is the top of the user stack and the user
// registers, for unwinding with call-frame information (runtime/unwind/): u64 copied (stack
// bytes that follow), u64 frame0 (the probed function's entry for a span's end, else 0), the
// registers in kStackCopyRegs order, then the stack from sp upwards. Never printed itself.
enum class StackCopyReg { Ip, Sp, Bp, Bx, R12, R13, R14, R15 };
inline constexpr uint32_t kStackCopyRegs = 8;
inline constexpr uint32_t kStackCopyHeader = 16 + 8 * kStackCopyRegs;
inline constexpr uint32_t kStackCopyChunk = 4096;  // one page: a read never crosses the stack's top

// A PyStack field ("pystack") is the Python call path of the thread, innermost first, as the
// program walked the interpreter's frame chain (bpf-templates/py_stack.h): u64 count, u64 status
// (PyStackStatus), then `count` frames of {u64 code object address, u64 instruction}, where the
// instruction is f_lasti (3.8 to 3.10) or the frame's instruction pointer (3.11+); user space
// names them (runtime/python/frame_namer.hpp). Bit 63 of a code address (user addresses never
// have it) marks the outermost frame of one call of the eval loop (3.11: is_entry; 3.12+: its
// caller is a C-stack shim), which `with stack` uses to place frames among the native ones.
inline constexpr uint64_t kPyEntryBit = 1ull << 63;
enum class PyStackStatus : uint64_t {
  Complete = 0,    // the walk reached the outermost frame
  NotRead = 1,     // the process is not in the reader's map (another interpreter, or none)
  NoThread = 2,    // the thread has no Python thread state (a thread Python did not create)
  Truncated = 3,   // more frames than the field holds: the outermost are left out
  ReadFailed = 4,  // a read of the interpreter's memory failed part-way
};
inline constexpr uint32_t kPyStackHeader = 16;
inline constexpr uint32_t kPyFrameBytes = 16;

// A rule's record: the header (record_header.hpp), then these fields.
struct Record {
  uint32_t rule_id = 0;
  uint32_t size = 0;  // header + fields, 8-byte aligned
  std::vector<Field> fields;
};

// Values every record carries in its header (record_header.hpp; time is time_ns as wall-clock
// time), which a message hole or a `with` item may name: the one list of them.
enum class HeaderValue { None, Pid, Tid, Comm, Cgroup, Time };
HeaderValue header_value_named(std::string_view name);  // None for any other name

// What a message hole or a `with` item prints, resolved once when the plan is made: the rule's
// record field at index `field` (into Record::fields, as into DecodedRecord::fields), else the
// header value `header`, else nothing a record carries (a windowed rule's {value} and labels,
// which user space finds by name).
struct ValueRef {
  int field = -1;
  HeaderValue header = HeaderValue::None;
};

struct MessagePart {
  bool is_field = false;
  std::string text;  // literal text, or the hole's name (printed as "{name}" when unresolved)
  ValueRef ref;      // a hole's value
};

struct WithItem {
  std::string name;  // as written: "size", "ustack", "cgroup"
  ValueRef ref;
};

enum class Severity { Info, Warning, Error, Critical };
inline constexpr Severity kSeverities[] = {Severity::Info, Severity::Warning, Severity::Error,
                                           Severity::Critical};

struct Rule {
  uint32_t id = 0;
  std::string name;
  std::string file;
  uint32_t line = 0;
  Severity severity = Severity::Warning;
  std::string event;  // "cuda.stream_sync"
  std::vector<MessagePart> message;
  std::vector<WithItem> with;  // values shown with the alert, in order
  int64_t limit_count = 0;     // 0: no limit
  int64_t limit_per_ns = 0;
  // `limit ... per process`: the count is kept per process (pid, the thread group) instead of
  // per rule; windowed rules only when their metric is `by pid` (lowering decides).
  bool limit_per_process = false;
  int64_t group_ns = 0;   // `group within D`: identical alerts in D become one with a count; 0: none
  bool windowed = false;  // evaluated in user space over metrics (when ... over)
  // `where pending > D`: spans begun and not ended after D, found by scanning the span's
  // in-flight map (its value starts with u64 start_ns, CLOCK_MONOTONIC) in user space.
  int64_t pending_ns = 0;
  std::string pending_map;
  int scope = -1;  // index into Plan::scopes of its file's scope; -1: host-wide
};

// TaskStorage: per-thread values in task-local storage (freed with the thread; max_entries 0).
enum class MapType { Hash, LruHash, Array, PercpuArray, Ringbuf, StackTrace, TaskStorage };

struct Map {
  std::string name;
  MapType type = MapType::Hash;
  uint32_t key_size = 0, value_size = 0, max_entries = 0;
  std::string purpose;  // "span stream_sync in flight", "state gil_held": for stats and messages
  // What an in-flight map's keys and values hold (compiler/lower/map_contents.hpp): a reload
  // keeps the map when the next object's has the same name, sizes and contents. Empty: never kept.
  std::string contents;
};

// `metric NAME on EVENT count|sum F|hist F by LABELS`: kept in a BPF hash map whose key is
// {u32 other; u32 pad; labels...} and whose value is {u64 count; u64 sum; u64 buckets[]}. Counts
// and sums are per-CPU; histograms (kHistBuckets buckets, see hist_layout.hpp) are too large to
// copy per CPU and live once per series, updated with atomic adds. When the map is full, updates
// fold into the key with other = 1 (the `other` series).
enum class MetricKind { Count, Sum, Hist };

// container, container_id, pod, namespace: labels kept in the kernel as the cgroup id and served
// as that cgroup's identity (runtime/metrics/identity_labels.hpp).
inline bool is_identity_label(const std::string& name) {
  return name == "container" || name == "container_id" || name == "pod" || name == "namespace";
}

struct MetricLabel {
  std::string name;                 // comm, cgroup, pid, tid, an identity label, or an event field
  FieldType type = FieldType::U64;  // Str for comm (16 bytes), U64 otherwise
  uint32_t offset = 0;              // in the key
  uint32_t size = 8;
  std::string enum_name;  // values served by the names of Plan::enums[enum_name] where it has one
};

struct Metric {
  std::string name;
  std::string map;
  MetricKind kind = MetricKind::Count;
  FieldUnit unit = FieldUnit::None;  // of the summed / histogrammed value
  std::vector<MetricLabel> labels;
  uint32_t key_size = 8;
  uint32_t value_size = 16;  // count, sum, then kHistBuckets u64 for Hist
  bool per_cpu = true;       // BPF_MAP_TYPE_PERCPU_HASH; false: one BPF_MAP_TYPE_HASH value per series
  uint32_t max_series = 1024;
  std::string help;    // the declaration's doc comment
  std::string origin;  // "file:line"
  int scope = -1;      // index into Plan::scopes of its file's scope; -1: host-wide
};

// A windowed rule: `when p99(sync_latency) over 1m > 50ms`, evaluated in user space per series.
enum class WindowFunction { Quantile, Avg, Min, Max, Count, Rate, Sum };
enum class Compare { Gt, Ge, Lt, Le, Eq, Ne };

struct Window {
  uint32_t rule_id = 0;
  WindowFunction function = WindowFunction::Quantile;
  double quantile = 0.99;  // Quantile only
  std::string metric;      // Metric::name
  int64_t window_ns = 0;
  Compare compare = Compare::Gt;
  double threshold = 0;  // in the metric's base unit (ns, bytes), or per second for Rate
};

// The processes a rule file's rules run for (`scope` in the file; docs/language.md). A scoped
// rule's program looks the current tgid up in the seam_scope map user space keeps
// (runtime/run/scope_keeper.hpp) and returns at once for a process outside it; in an object
// that merges files of different scopes (a bundle), a program that serves several tests each
// rule and metric update on its own (compiler/codegen/scope_slots.hpp).
enum class ScopeKind { Host, Workload, Cgroup, Comm };

struct Scope {
  ScopeKind kind = ScopeKind::Host;
  std::string argument;  // Cgroup: the path under the v2 mount; Comm: the name pattern
  std::string origin;    // "file:line" of the declaration ("" when none: the whole host)
};

// A per-thread state read from the process's memory where it is tested (`state S per thread =
// READER of LIBRARY`): the runtime finds the processes that map `library`, works out what the
// kernel needs to read (runtime/python/ for reader "cpython_gil"), and writes it into `map`
// (key: u32 pid, value: the reader's struct, bpf-templates/py_gil.h). A process not in the map
// has the state false.
struct MemoryReader {
  std::string reader;  // "cpython_gil"
  std::string state;   // "python.gil_held", for notices
  std::string map;
  int library = -1;    // index into Plan::libraries
  std::string origin;  // "file:line" of the state's declaration
};

// The value of a "cpython_gil" reader's map, as bpf-templates/py_gil.h reads it: the thread
// holds the GIL when the int at gil + locked is 1 and the PyThreadState* at gil + holder has
// thread_id (pthread_self(), the thread's fs base on x86-64) equal to the thread's. gil is
// `runtime` itself (3.8 to 3.11: the GIL is in _PyRuntime.ceval), or, when interp_ptr is not
// 0, the interpreter whose pointer is at runtime + interp_ptr (3.12+: its own GIL).
//
// The same value tells a `pystack` walk (bpf-templates/py_stack.h) where the thread's frames
// are: the thread's PyThreadState is the thread-specific value of the interpreter's autoTSSkey
// (glibc keeps key k below 32 at fsbase + tss_base + 16 k + 8), its first frame at tstate +
// tstate_frame (through the _PyCFrame's current_frame at cframe_frame when that is not
// kNoCframe: 3.11, 3.12), and each frame's code, caller and instruction at the frame_ offsets.
inline constexpr uint32_t kNoCframe = 0xffffffff;
struct CpythonProcess {
  uint64_t runtime = 0;       // address of _PyRuntime in the process
  uint32_t interp_ptr = 0;    // offset of interpreters.main in _PyRuntime, or 0
  uint32_t locked = 0;        // offset of the GIL's `locked` from the base
  uint32_t holder = 0;        // offset of the GIL's `last_holder` from the base
  uint32_t thread_id = 0;     // offset of PyThreadState.thread_id
  uint32_t tss_key = 0;       // offset of autoTSSkey._key (an unsigned int) in _PyRuntime; 0: no frames
  uint32_t tss_base = 0;      // offset of glibc's struct pthread specific_1stblock[0] from the fs base
  uint32_t tstate_frame = 0;  // PyThreadState.frame / .cframe / .current_frame
  uint32_t cframe_frame = kNoCframe;  // _PyCFrame.current_frame, or kNoCframe
  uint32_t frame_back = 0;            // f_back / previous
  uint32_t frame_code = 0;            // f_code / f_executable
  uint32_t frame_instr = 0;           // f_lasti (int) / prev_instr / instr_ptr
  uint32_t frame_owner = 0;           // owner (char; 3 is a C-stack shim, skipped); 0: none
  uint32_t frame_read = 0;            // bytes read per frame (covers every offset above)
  uint32_t instr_is_int = 0;          // 1: frame_instr is f_lasti, an int (3.8 to 3.10)
  uint32_t frame_entry = 0;           // is_entry (bool, 3.11): the first frame of an eval call
  uint32_t pad = 0;
};
static_assert(sizeof(CpythonProcess) == 72);
inline constexpr uint32_t kCpythonProcessValueSize = sizeof(CpythonProcess);

// `container == "web"`, `pod startswith "api-"`, `namespace != "kube-system"`: who the process
// is, which the kernel cannot know (it knows the cgroup id). Each distinct test is one bit of
// `identity_map` (key: u64 cgroup id, value: u64 bits): the runtime walks the cgroup v2 tree,
// works out each cgroup's identity (runtime/identity/) and sets the bits of the tests that hold
// there (runtime/run/identity_keeper.hpp). A cgroup not in the map holds none of them.
struct IdentityTest {
  std::string field;    // container (the 12-digit short id), container_id, pod (name), namespace
  bool prefix = false;  // startswith; else ==
  std::string value;
};
inline constexpr size_t kMaxIdentityTests = 64;

// A rule or metric left out because this kernel lacks a probe it needs (a tracepoint it does not
// have: compiler/check/availability.hpp); the rest of its file runs, and the runtime reports it.
struct UnavailableRule {
  std::string name;
  bool metric = false;
  std::string origin;  // "file:line"
  std::string reason;  // "tracepoint sched:x: this kernel has no such tracepoint"
};

// `output NAME = stdout | json "PATH" | webhook "URL" [format F]`: where alerts may go.
enum class OutputKind { Stdout, Json, Webhook };
enum class WebhookFormat { Default, Json, Alertmanager };  // Default: json, unless the URL's options say
struct Output {
  std::string name;
  OutputKind kind = OutputKind::Stdout;
  std::string target;  // Json: the file; Webhook: the URL (and ,options as --output takes them)
  WebhookFormat format = WebhookFormat::Default;
  std::string origin;  // "file:line"
};

// A route's condition over the alert's severity and its rule's name, as data:
// Const (value), Not (operands[0]), And / Or (operands[0], operands[1]),
// Severity (the alert's severity `compare` severity), Rule (the rule's name == / != / startswith text).
struct RouteCondition {
  enum class Kind { Const, Not, And, Or, Severity, Rule };
  Kind kind = Kind::Const;
  bool value = false;
  Compare compare = Compare::Eq;  // Severity; Rule: Eq or Ne
  Severity severity = Severity::Info;
  bool prefix = false;  // Rule: startswith
  std::string text;     // Rule
  std::vector<RouteCondition> operands;
};

// `route COND -> A, B`: an output named by a route receives the alerts its routes select; an
// output no route names receives every alert.
struct Route {
  RouteCondition condition;
  std::vector<std::string> outputs;
  std::string origin;  // "file:line"
};

struct Plan {
  // The distinct scopes of the files compiled together (Rule::scope and Metric::scope index it):
  // at most one for `seam run`'s one object per file, one per scope for a bundle's merged files.
  std::vector<Scope> scopes;
  // File-name globs of every library a module marks `workload` (libcudart.so*, libnccl.so*):
  // a process that maps one is in `scope workload`.
  std::vector<std::string> workload_libraries;
  std::vector<Library> libraries;
  std::vector<MemoryReader> memory_readers;
  std::vector<IdentityTest> identity_tests;  // bit i of identity_map's values is test i
  std::string identity_map = "seam_identity";
  std::vector<Attachment> attachments;
  std::vector<Map> maps;
  std::vector<Rule> rules;
  std::vector<UnavailableRule> unavailable_rules;  // not in `rules`: not lowered at all
  std::vector<Record> records;                     // one per rule that emits; rule_id identifies it
  std::vector<Metric> metrics;
  std::vector<Window> windows;
  std::string ringbuf_map = "seam_events";
  std::string drops_map = "seam_drops";  // per-CPU array indexed by rule id: failed reserves
  uint32_t ringbuf_bytes = 1u << 22;
  // `seam run --pid` and `-c`: the one process, or the one cgroup, every program is about (0: any).
  // The generated C tests them where they are set, against constants the loader writes before the
  // load (seam_target_tgid, seam_target_cgroup), so that their values are not in the C: a run for
  // another pid, or `-c`'s new cgroup, finds the object an earlier run built.
  uint32_t target_tgid = 0;
  uint64_t target_cgroup = 0;
  // seam's own sched programs (the exec notice, the scope's fork and exit programs) are raw
  // tracepoint programs (raw_tracepoint/sched_process_exec...), attached as such: lowering says so
  // where the kernel is known to have them. Their links detach without the grace period a perf
  // tracepoint's close waits for under the kernel's event_mutex.
  bool raw_sched_programs = false;
  // Enum name -> value -> name, for the fields whose enum_name is set (from the modules' `enum`s).
  std::map<std::string, std::map<int64_t, std::string>> enums;
  std::vector<Output> outputs;  // declared in the rule files (--output flags are the runtime's)
  std::vector<Route> routes;
};

// Sets the ref of every message hole and `with` item of `rule` by its name, against the rule's
// record (nullptr when it has none, as a windowed rule): lowering does it once for every rule,
// and so does a test that makes a plan by hand.
void resolve_values(Rule& rule, const Record* record);
void resolve_values(Plan& plan);

const char* to_string(AttachKind k);
const char* to_string(HeaderValue v);
const char* to_string(ScopeKind k);
const char* to_string(Feature f);
const char* to_string(FieldType t);
const char* to_string(Severity s);
// "warning" -> Severity::Warning (the one table of severity words: to_string's).
std::optional<Severity> severity_named(std::string_view word);

void to_json(nlohmann::json& j, const Plan& p);
void from_json(const nlohmann::json& j, Plan& p);

}  // namespace seam::plan
