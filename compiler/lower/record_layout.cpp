// What a rule's record carries: the header (time, pid, tid, cgroup, comm) and then every value
// its message and `with` list print, each at a fixed offset the runtime reads from the layout.
#include <algorithm>

#include "compiler/lower/lowerer.hpp"

namespace seam::lower {

namespace {

bool in_header(const std::string& name) {
  return plan::header_value_named(name) != plan::HeaderValue::None;
}

// Rules on these run where the program's context is the thread's user registers (pt_regs).
bool fires_in_user_context(const ast::EventDecl& e) {
  const std::vector<ast::ProbeSpec>& fires = e.end.empty() ? e.begin : e.end;
  if (fires.empty()) return false;
  for (const ast::ProbeSpec& p : fires)
    if (p.kind != ast::ProbeKind::Call && p.kind != ast::ProbeKind::Uprobe &&
        p.kind != ast::ProbeKind::Uretprobe && p.kind != ast::ProbeKind::Usdt)
      return false;
  return true;
}

}  // namespace

plan::Cond all_of(std::vector<plan::Cond> parts) {
  if (parts.empty()) return plan::Cond{};
  plan::Cond c = std::move(parts.back());
  parts.pop_back();
  while (!parts.empty()) {
    plan::Cond both;
    both.op = plan::CondOp::And;
    both.kids.push_back(std::move(parts.back()));
    both.kids.push_back(std::move(c));
    parts.pop_back();
    c = std::move(both);
  }
  return c;
}

plan::RuleCheck Lowerer::rule_check(const ast::RuleDecl& rule, uint32_t rule_id, int correlation) {
  plan::RuleCheck check;
  check.rule_id = rule_id;
  check.origin = origin_of(rule.range);
  if (rule.range.valid()) {
    check.origin_file = rule.range.file->shown();
    check.origin_line = rule.range.file->line_col(rule.range.begin).line;
  }
  // Cheap comparisons first, then state and correlation map lookups (C's && short-circuits).
  std::vector<plan::Cond> parts;
  if (rule.where) parts.push_back(condition(*rule.where, rule, correlation));
  if (rule.while_) parts.push_back(condition(*rule.while_, rule, correlation));
  if (rule.after && correlation >= 0) {
    plan::Cond recent;
    recent.op = plan::CondOp::CorrelatedWithin;
    recent.index = correlation;
    if (rule.after->within)
      if (const auto* lit = std::get_if<ast::IntLit>(&rule.after->within->node))
        recent.within_ns = lit->value;
    if (rule.after->resolved) require_in_flight(recent, *rule.after->resolved, rule, correlation);
    parts.push_back(std::move(recent));
  }
  check.when = all_of(std::move(parts));

  plan::Record record;
  record.rule_id = rule_id;
  uint32_t offset = plan::kRecordHeaderSize;
  auto add = [&](const std::string& name, plan::Value source, plan::FieldType type, plan::FieldUnit unit) {
    if (in_header(name)) return;
    for (const plan::Field& f : record.fields)
      if (f.name == name) return;
    plan::Field f;
    f.name = name;
    f.type = type;
    f.unit = unit;
    f.offset = offset;
    if (type == plan::FieldType::UStack || type == plan::FieldType::KStack) {
      uint32_t frames = type == plan::FieldType::UStack ? options_.ustack_frames : options_.kstack_frames;
      f.size = 8 + 8 * frames;
    } else if (type == plan::FieldType::UStackCopy) {
      f.size = plan::kStackCopyHeader + options_.ustack_copy_bytes;
    } else if (type == plan::FieldType::PyStack) {
      f.size = plan::kPyStackHeader + plan::kPyFrameBytes * options_.pystack_frames;
    } else if (type == plan::FieldType::Str) {
      f.size = 16;  // a name (a tracepoint's char array)
    } else {
      f.size = 8;  // every scalar travels as 8 bytes; `type` says how to read and print it
    }
    offset += f.size;
    record.fields.push_back(f);
    check.fills.push_back({f, std::move(source)});
  };
  const ast::EventDecl* event = rule.resolved_event;
  if (event && event->is_span && event_sites(*event).keyed) check.thread_slot = begin_thread_slot(*event);
  if (event && event->is_span) {
    plan::Value d;
    d.kind = plan::ValueKind::Duration;
    add("duration", d, plan::FieldType::U64, plan::FieldUnit::Ns);
  }
  auto add_ref = [&](const ast::NameRef& ref) {
    std::string name = ref.name.str();
    plan::Value v = name_value(ref, rule, correlation);
    plan::FieldType type = v.type;
    plan::FieldUnit unit = plan::FieldUnit::None;
    if (ref.field) {
      type = field_type(ref.field->type.type);
      unit = field_unit(ref.field->type.type);
    }
    if (v.kind == plan::ValueKind::Duration) unit = plan::FieldUnit::Ns;
    if (v.kind == plan::ValueKind::Comm || (v.kind == plan::ValueKind::BeginThread && v.name == "comm"))
      return;  // in the header
    add(name, v, type, unit);
    if (ref.field && !ref.field->type.type.enum_name.empty())
      name_enum(record, name, ref.field->type.type.enum_name);
  };
  if (rule.alert)
    for (const ast::MessagePart& part : rule.alert->message)
      if (part.is_hole && part.ref.kind != ast::RefKind::Unresolved) add_ref(part.ref);
  auto add_pystack = [&] {
    plan::Value frames;  // the walk reads where the process map says (its name in `name`)
    frames.name = python_frames_map(check.origin);
    add("pystack", std::move(frames), plan::FieldType::PyStack, plan::FieldUnit::None);
  };
  for (const ast::Ident& w : rule.with) {
    if (w.name == "pystack") {
      add_pystack();
      continue;
    }
    if (w.name == "ustack" || w.name == "kstack" || w.name == "stack") {
      // `stack`: the user stack and the Python frames, which the runtime merges into one.
      if (w.name == "stack") add_pystack();
      bool user = w.name != "kstack";
      std::string name = user ? "ustack" : "kstack";
      add(name, plan::Value{}, user ? plan::FieldType::UStack : plan::FieldType::KStack,
          plan::FieldUnit::None);
      if (user && event && event->is_span && !event->begin.empty() &&
          event->begin[0].kind == ast::ProbeKind::Call) {
        check.ustack_from_saved_ip = true;
        program.spans[static_cast<size_t>(event_sites(*event).span)].save_ip = true;
      }
      // The stack copy for unwinding without frame pointers, where the registers are at hand.
      if (user && event && options_.ustack_copy_bytes > 0 && fires_in_user_context(*event))
        add("ustack_copy", plan::Value{}, plan::FieldType::UStackCopy, plan::FieldUnit::None);
      continue;
    }
    if (in_header(w.name)) continue;
    ast::NameRef ref;
    ref.name.parts.push_back(w);
    ref.name.range = w.range;
    const ast::FieldDecl* field = nullptr;
    if (event)
      for (const ast::FieldDecl& f : event->fields)
        if (f.name.name == w.name) field = &f;
    if (field) {
      ref.kind = ast::RefKind::EventField;
      ref.field = field;
    } else {
      ref.kind = ast::RefKind::Builtin;
      ref.builtin = w.name;
    }
    add_ref(ref);
  }
  record.size = (offset + 7) & ~7u;
  check.record_size = record.size;
  program.plan.records.push_back(std::move(record));
  return check;
}

}  // namespace seam::lower
