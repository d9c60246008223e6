#include "runtime/output/alert_builder.hpp"

#include <algorithm>
#include <cstring>

#include "runtime/output/format.hpp"
#include "runtime/output/value_text.hpp"

namespace seam::runtime {
namespace {

bool is_stack(plan::FieldType t) {
  return t == plan::FieldType::UStack || t == plan::FieldType::KStack || t == plan::FieldType::PyStack;
}

bool lists(const plan::Rule& rule, std::string_view item) {
  return std::any_of(rule.with.begin(), rule.with.end(),
                     [&](const plan::WithItem& w) { return w.name == item; });
}

// The native frame that runs Python frames: CPython's eval loop (3.8 to 3.13).
bool is_eval_loop(const StackFrame& f) {
  return !f.python && f.symbol == "_PyEval_EvalFrameDefault";
}

// `with stack`: the native frames with the Python frames of each call of the eval loop placed
// just before (inside) the _PyEval_EvalFrameDefault frame that runs them, innermost first; Python
// frames left when the native frames hold no more eval loops (an unwind that stopped early)
// follow the native frames. docs/language.md documents the form.
AlertStack merged_stack(const AlertStack& native, const AlertStack* python) {
  AlertStack out;
  out.name = "stack";
  out.truncated = native.truncated;
  size_t next = 0;  // the next Python frame to place
  const std::vector<StackFrame> none;
  const std::vector<StackFrame>& py = python ? python->frames : none;
  for (const StackFrame& f : native.frames) {
    if (is_eval_loop(f))
      while (next < py.size()) {
        out.frames.push_back(py[next]);
        if (py[next++].entry) break;  // the outermost frame of this eval call
      }
    out.frames.push_back(f);
  }
  for (; next < py.size(); ++next) out.frames.push_back(py[next]);
  // A process that runs no Python at all needs no marker in its native stack; every other reason
  // (no thread state, a truncated walk, an interpreter no longer known) is said.
  if (python && !python->truncated.empty() &&
      python->truncated != "no Python frames: the process runs no interpreter seam reads")
    out.truncated += (out.truncated.empty() ? "" : "; ") + python->truncated;
  return out;
}

// A process names itself (prctl, argv[0]): in a message its name must not forge a line or a
// terminal escape, so control bytes show as '?' as in the comm= field.
void append_comm(std::string& out, std::string_view comm) {
  for (char c : comm) out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
}

// Fields that are material for a stack, never shown themselves.
bool is_hidden(plan::FieldType t) {
  return t == plan::FieldType::UStackCopy;
}

// The decoder's bytes of a UStackCopy field, read as the header plan.hpp describes.
bool parse_stack_copy(const std::string& bytes, StackCopyView& out) {
  if (bytes.size() < plan::kStackCopyHeader) return false;
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  std::memcpy(&out.frame0, p + 8, 8);
  std::memcpy(out.regs, p + 16, sizeof out.regs);
  out.stack = std::span<const uint8_t>(p + plan::kStackCopyHeader, bytes.size() - plan::kStackCopyHeader);
  return true;
}

// The record's field a hole or `with` item names (resolved when the plan was made), or nullptr.
const DecodedField* field_of(const plan::ValueRef& ref, const DecodedRecord& r) {
  return ref.field >= 0 && static_cast<size_t>(ref.field) < r.fields.size() ? &r.fields[ref.field] : nullptr;
}

bool append_header_value(plan::HeaderValue value, const DecodedRecord& r, std::string& out) {
  switch (value) {
    case plan::HeaderValue::Pid:
      return format::append_uint(out, r.pid), true;
    case plan::HeaderValue::Tid:
      return format::append_uint(out, r.tid), true;
    case plan::HeaderValue::Comm:
      return append_comm(out, r.comm), true;
    case plan::HeaderValue::Cgroup:
      return format::append_uint(out, r.cgroup), true;
    case plan::HeaderValue::Time:
      return format::append_rfc3339_ms(out, r.wall_ns), true;
    case plan::HeaderValue::None:
      break;
  }
  return false;
}

// Sets `field` to a copy of `value`, keeping the capacity of strings already there.
void assign_field(AlertField& field, std::string_view name, const Value& value, std::string_view enum_name,
                  const EnumNamer& enum_namer) {
  field.name.assign(name);
  field.value = value;
  field.enum_name.assign(enum_name);
  field.text.clear();
  append_value_text(field.text, value, enum_name, enum_namer);
}

}  // namespace

void render_message(const std::vector<plan::MessagePart>& parts, const DecodedRecord& record,
                    const EnumNamer& enum_namer, std::string& out) {
  for (const auto& part : parts) {
    if (!part.is_field) {
      out.append(part.text);
    } else if (const DecodedField* f = field_of(part.ref, record)) {
      append_value_text(out, f->value, f->field->enum_name, enum_namer);
    } else if (!append_header_value(part.ref.header, record, out)) {
      out.push_back('{');
      out.append(part.text);
      out.push_back('}');
    }
  }
}

AlertBuilder::AlertBuilder(StackSymbolizer symbolizer, EnumNamer enum_namer, StackUnwinder unwinder,
                           PyStackNamer py_namer)
    : symbolizer_(std::move(symbolizer)),
      unwinder_(std::move(unwinder)),
      py_namer_(std::move(py_namer)),
      enum_namer_(std::move(enum_namer)) {}

void AlertBuilder::build(const DecodedRecord& record, uint64_t suppressed, Alert& out) const {
  const plan::Rule& rule = *record.rule;
  out.time_ns = record.wall_ns;
  out.severity = rule.severity;
  out.rule.assign(rule.name);
  out.file.assign(rule.file);
  out.line = rule.line;
  out.message.clear();
  render_message(rule.message, record, enum_namer_, out.message);
  out.pid = record.pid;
  out.tid = record.tid;
  out.comm.assign(record.comm);
  out.cgroup = record.cgroup;
  out.suppressed = suppressed;

  size_t n_fields = 0;
  for (const plan::WithItem& item : rule.with) {
    const DecodedField* f = field_of(item.ref, record);
    if (f && (is_stack(f->field->type) || is_hidden(f->field->type))) continue;  // shown as a stack below
    // pid, tid, comm and time are always shown; a name not in the record has nothing to show.
    if (!f && item.ref.header != plan::HeaderValue::Cgroup) continue;
    if (n_fields == out.fields.size()) out.fields.emplace_back();
    AlertField& slot = out.fields[n_fields++];
    if (f) {
      assign_field(slot, item.name, f->value, f->field->enum_name, enum_namer_);
    } else {
      assign_field(slot, item.name, Value{record.cgroup, plan::FieldUnit::None, plan::FieldType::U64}, {},
                   {});
    }
  }
  // Then every other value the record carries (the span's duration, message holes), so that
  // JSON consumers get each one typed and need not parse the message.
  for (size_t i = 0; i < record.fields.size(); ++i) {
    const DecodedField& f = record.fields[i];
    if (is_stack(f.field->type) || is_hidden(f.field->type)) continue;
    bool shown = false;
    for (const plan::WithItem& item : rule.with) shown |= item.ref.field == static_cast<int>(i);
    if (shown) continue;
    if (n_fields == out.fields.size()) out.fields.emplace_back();
    assign_field(out.fields[n_fields++], f.field->name, f.value, f.field->enum_name, enum_namer_);
  }
  out.fields.resize(n_fields);

  size_t n_stacks = 0;
  for (const auto& f : record.fields) {
    if (!is_stack(f.field->type)) continue;
    if (n_stacks == out.stacks.size()) out.stacks.emplace_back();
    AlertStack& stack = out.stacks[n_stacks++];
    stack.name.assign(f.field->name);
    stack.kernel = f.field->type == plan::FieldType::KStack;
    stack.truncated.clear();
    if (f.field->type == plan::FieldType::PyStack) {
      const auto* bytes = std::get_if<std::string>(&f.value.v);
      stack.frames.clear();
      if (bytes) name_python(record, *bytes, stack);
      continue;
    }
    if (!stack.kernel && unwind(record, stack)) continue;
    symbolize(record.pid, std::get<std::vector<uint64_t>>(f.value.v), stack);
  }
  out.stacks.resize(n_stacks);
  if (!lists(rule, "stack")) return;
  // One mixed stack in place of the user stack; the parts stay only where `with` names them.
  auto named = [&](std::string_view name) {
    for (size_t i = 0; i < out.stacks.size(); ++i)
      if (out.stacks[i].name == name) return static_cast<int>(i);
    return -1;
  };
  int native = named("ustack"), python = named("pystack");
  if (native < 0) return;
  AlertStack mixed = merged_stack(out.stacks[static_cast<size_t>(native)],
                                  python >= 0 ? &out.stacks[static_cast<size_t>(python)] : nullptr);
  bool keep_native = lists(rule, "ustack"), keep_python = lists(rule, "pystack");
  std::vector<AlertStack> stacks;
  for (size_t i = 0; i < out.stacks.size(); ++i) {
    if (static_cast<int>(i) == native) {
      stacks.push_back(mixed);
      if (keep_native) stacks.push_back(std::move(out.stacks[i]));
    } else if (static_cast<int>(i) != python || keep_python) {
      stacks.push_back(std::move(out.stacks[i]));
    }
  }
  out.stacks = std::move(stacks);
}

void AlertBuilder::name_python(const DecodedRecord& record, const std::string& bytes, AlertStack& out) const {
  if (!py_namer_) {
    out.truncated = "no Python frames: nothing names them here";
    return;
  }
  py_namer_(record.pid, {reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()}, out);
}

Alert AlertBuilder::build(const DecodedRecord& record, uint64_t suppressed) const {
  Alert out;
  build(record, suppressed, out);
  return out;
}

// With a stack copy in the record, the user stack is unwound from it (call-frame information);
// without one, or when that cannot start, the frame-pointer stack is symbolized as it is.
bool AlertBuilder::unwind(const DecodedRecord& record, AlertStack& out) const {
  if (!unwinder_) return false;
  for (const auto& f : record.fields) {
    if (f.field->type != plan::FieldType::UStackCopy) continue;
    const auto* bytes = std::get_if<std::string>(&f.value.v);
    StackCopyView copy;
    if (!bytes || !parse_stack_copy(*bytes, copy)) return false;
    return unwinder_(record.pid, record.tid, copy, out);
  }
  return false;
}

void AlertBuilder::symbolize(uint32_t pid, const std::vector<uint64_t>& addrs, AlertStack& out) const {
  if (symbolizer_ && !addrs.empty()) {
    out.frames = symbolizer_(pid, addrs, out.kernel);
    if (out.frames.size() == addrs.size()) return;
    if (!out.kernel && out.frames.size() < addrs.size()) {  // a user stack's frames up to where code ends
      out.truncated = "truncated: frame pointers lead to ";
      format::append_hex(out.truncated, addrs[out.frames.size()]);
      out.truncated += ", outside mapped code";
      return;
    }
  }
  // No symbolizer, or one that broke its contract: show the bare addresses.
  out.frames.resize(addrs.size());
  for (size_t i = 0; i < addrs.size(); ++i) out.frames[i] = StackFrame{addrs[i], {}, 0, {}};
}

}  // namespace seam::runtime
