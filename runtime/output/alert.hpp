#pragma once
// What sinks print: an alert (a rule matched) or a notice (the runtime talking about itself).
// An Alert is self-contained (no pointers into the plan or the record), so the run stage can
// also build one for windowed rules evaluated in user space.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/decode/decoded_record.hpp"
#include "runtime/output/notice_kind.hpp"

namespace seam::runtime {

struct StackFrame {
  uint64_t addr = 0;      // python: the code object's address
  std::string symbol;     // "" when unknown; python: the qualified name ("Server.handle_request")
  uint64_t offset = 0;    // from the symbol; python: the instruction's byte offset in its code
  std::string module;     // "libcudart.so.12", "[unknown]", "" when not symbolized; python: "server"
  bool python = false;    // a Python frame (`pystack`, `stack`), named from the interpreter's memory
  std::string file = {};  // python: co_filename
  int line = -1;          // python: the line being run; -1 when the line table gives none
  bool entry = false;     // python: the outermost frame its call of the eval loop runs
};

struct AlertStack;

// Injected by the runtime (runtime/python provides the real one): names the Python frames of a
// PyStack field's bytes (plan::FieldType::PyStack) into `out.frames`, and sets `out.truncated`
// when the walk stopped early or read nothing.
using PyStackNamer = std::function<void(uint32_t pid, std::span<const uint8_t> bytes, AlertStack& out)>;

// Injected by the runtime (runtime/symbolize provides the real one); one frame per address, or
// for a user stack the frames of its first addresses, up to one that is not in mapped code.
using StackSymbolizer =
    std::function<std::vector<StackFrame>(uint32_t pid, std::span<const uint64_t> addrs, bool kernel)>;

struct AlertStack;

// The user stack copy a record carries beside `ustack` (plan::FieldType::UStackCopy), as the
// decoder keeps it: the header (copied, frame0, registers) and the copied stack bytes.
struct StackCopyView {
  uint64_t frame0 = 0;  // the probed function's entry (a span's end), else 0
  uint64_t regs[plan::kStackCopyRegs] = {};
  std::span<const uint8_t> stack;  // from regs[Sp] upwards
};

// Injected by the runtime (runtime/unwind provides the real one): fills `out.frames` (and
// `out.truncated`) by unwinding the copy with call-frame information; false when it cannot
// unwind at all (no mappings for the process), and the frame-pointer stack is used instead.
using StackUnwinder =
    std::function<bool(uint32_t pid, uint32_t tid, const StackCopyView& copy, AlertStack& out)>;

// The hook for fields whose plan::Field::enum_name is set: the value's name, or nullopt to
// print the number. The returned view must stay valid (static tables).
using EnumNamer = std::function<std::optional<std::string_view>(std::string_view enum_name, int64_t value)>;

struct AlertField {
  std::string name;
  Value value;
  std::string enum_name;  // from the plan field
  std::string text;       // the value as shown to people (unit, enum name); empty: format `value`
};

struct AlertStack {
  std::string name;  // the field name: "ustack", "kstack"
  bool kernel = false;
  std::vector<StackFrame> frames;
  // Why the stack stops before its outermost frame, when that is known: "stack copy ends",
  // "truncated: no CFI for libfoo.so". Printed after the frames; empty: nothing to say.
  std::string truncated = {};
};

struct Alert {
  int64_t time_ns = 0;  // wall clock, ns since the epoch
  plan::Severity severity = plan::Severity::Warning;
  std::string rule;
  std::string file;
  uint32_t line = 0;
  std::string message;  // rendered
  uint32_t pid = 0;
  uint32_t tid = 0;
  std::string comm;
  uint64_t cgroup = 0;
  std::vector<AlertField> fields;  // the rule's `with` items, except stacks and pid/tid/comm/time
  std::vector<AlertStack> stacks;  // every stack the record carries, symbolized
  uint64_t suppressed = 0;         // alerts of this rule held back by its limit since the last one written
  // Rules with `group within D`: the identical alerts (same process and stack) this one stands
  // for: 1 when written at once, first + repeats in a group's summary. 0: the rule does not group.
  uint64_t count = 0;
  // Where the process runs, from its cgroup (empty outside containers / Kubernetes).
  std::string cgroup_path;
  std::string container_id;
  std::string container_name;  // the container's name in its pod spec (--pods), "" when unknown
  std::string pod_uid;
  std::string pod_name;
  std::string pod_namespace;
  // Windowed rules hold over a series: kFiring when the state starts and while it holds (re-sent),
  // kResolved once it stops; starts_ns is when it started. Alerts from records are events ("").
  std::string status;
  int64_t starts_ns = 0;
  // False for a windowed alert on a series not `by` pid, tid or comm: no process to name.
  bool has_task = true;
};

inline constexpr const char* kFiring = "firing";
inline constexpr const char* kResolved = "resolved";

struct Notice {
  plan::Severity severity = plan::Severity::Warning;
  std::string kind;  // notice_id(NoticeKind::...): "probe-unavailable", "drops" (notice_kind.hpp)
  std::string message;
  std::optional<std::string> rule;  // the rule it is about, if any
  uint64_t count = 0;               // drops, suppressed alerts: how many (0: not a count)
  std::string output = {};          // the output it is about (output-drops), "" when none
};

}  // namespace seam::runtime
