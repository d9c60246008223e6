#include "runtime/output/webhook_format.hpp"

#include "runtime/output/format.hpp"
#include "runtime/output/json_sink.hpp"
#include "runtime/output/json_text.hpp"
#include "runtime/output/value_text.hpp"

namespace seam::runtime {
namespace {

using json_text::append_key;
using json_text::append_string;

void append_label(std::string& out, std::string_view name, std::string_view value, bool& first) {
  if (value.empty()) return;
  append_key(out, name, first);
  append_string(out, value);
  first = false;
}

std::string frame_text(const StackFrame& f) {
  std::string s;
  if (f.python)
    return "File \"" + f.file + "\", line " + (f.line >= 0 ? std::to_string(f.line) : std::string("?")) +
           ", in " + f.symbol;
  if (f.symbol.empty()) {
    format::append_hex(s, f.addr);
  } else {
    s = f.symbol;
    if (f.offset) {
      s += "+";
      format::append_hex(s, f.offset);
    }
  }
  if (!f.module.empty()) s += " (" + f.module + ")";
  return s;
}

std::string description(const Alert& a) {
  std::string d = "rule " + a.rule + " (" + a.file + ":" + std::to_string(a.line) + ")";
  if (a.status == kResolved)
    d += " resolved";
  else if (a.status == kFiring)
    d += " holds";
  else
    d += " matched";
  if (a.has_task) d += " in pid " + std::to_string(a.pid) + " (" + a.comm + ")";
  for (size_t k = 0; k < a.fields.size(); ++k) {
    d += k ? ", " : ": ";
    d += a.fields[k].name + "=";
    if (a.fields[k].text.empty())
      append_value_text(d, a.fields[k].value, a.fields[k].enum_name);
    else
      d += a.fields[k].text;
  }
  if (a.suppressed) d += " (" + std::to_string(a.suppressed) + " more held back by the rule's limit)";
  if (a.count > 1)
    d += " (" + std::to_string(a.count) + " identical alerts in the group, " + std::to_string(a.count - 1) +
         " suppressed)";
  return d;
}

std::string stack_text(const Alert& a, size_t max_frames) {
  std::string s;
  for (const AlertStack& stack : a.stacks) {
    if (!s.empty()) s += "\n";
    s += stack.name + ":";
    size_t n = std::min(max_frames, stack.frames.size());
    for (size_t k = 0; k < n; ++k) s += "\n  " + frame_text(stack.frames[k]);
    if (stack.frames.size() > n) s += "\n  ... " + std::to_string(stack.frames.size() - n) + " more";
    if (stack.frames.size() <= n && !stack.truncated.empty()) s += "\n  [" + stack.truncated + "]";
  }
  return s;
}

void append_time(std::string& out, int64_t wall_ns) {
  out.push_back('"');
  format::append_rfc3339_ms(out, wall_ns);
  out.push_back('"');
}

void append_alertmanager_alert(std::string& out, const Alert& a, const AlertmanagerContext& ctx) {
  Identity id;
  if (ctx.identity && a.cgroup) id = ctx.identity(a.cgroup);
  out.append("{\"labels\":{");
  bool first = true;
  append_label(out, "alertname", a.rule, first);
  append_label(out, "severity", plan::to_string(a.severity), first);
  append_label(out, "instance", ctx.instance, first);
  append_label(out, "rule_file", a.file, first);
  if (a.has_task) {
    append_label(out, "pid", std::to_string(a.pid), first);
    append_label(out, "comm", a.comm, first);
  }
  if (a.has_task || a.cgroup)
    append_label(out, "cgroup", id.cgroup_path.empty() ? std::to_string(a.cgroup) : id.cgroup_path, first);
  append_label(out, "container_id", id.container_id, first);
  append_label(out, "container", id.container_name.empty() ? a.container_name : id.container_name, first);
  append_label(out, "container_runtime", id.container_runtime, first);
  append_label(out, "pod_uid", id.pod_uid, first);
  append_label(out, "pod", id.pod_name, first);
  append_label(out, "namespace", id.pod_namespace, first);
  // A windowed state's other series labels name it too: two series are two Alertmanager alerts.
  if (!a.status.empty())
    for (const AlertField& f : a.fields)
      if (f.name != "value" && std::holds_alternative<std::string>(f.value.v))
        append_label(out, f.name, f.text, first);
  out.append("},\"annotations\":{");
  first = true;
  append_label(out, "summary", a.message, first);
  append_label(out, "description", description(a), first);
  append_label(out, "stack", stack_text(a, ctx.stack_frames), first);
  if (a.count > 0) append_label(out, "count", std::to_string(a.count), first);
  // A windowed state keeps its start; a resolved one ends now. Anything else ends after the
  // resolve timeout unless it is sent again (a state is, while it holds).
  out.append("},\"startsAt\":");
  append_time(out, a.starts_ns ? a.starts_ns : a.time_ns);
  out.append(",\"endsAt\":");
  append_time(
      out,
      a.status == kResolved
          ? a.time_ns
          : a.time_ns + std::chrono::duration_cast<std::chrono::nanoseconds>(ctx.resolve_timeout).count());
  out.append(",\"generatorURL\":");
  append_string(out, ctx.generator_url + a.file + "#L" + std::to_string(a.line));
  out.push_back('}');
}

}  // namespace

std::string webhook_json_body(std::span<const Alert> alerts) {
  std::string out = "[";
  for (size_t k = 0; k < alerts.size(); ++k) {
    if (k) out.push_back(',');
    append_alert_json(out, alerts[k]);
    out.pop_back();  // the line's newline
  }
  out.push_back(']');
  return out;
}

std::string alertmanager_body(std::span<const Alert> alerts, const AlertmanagerContext& context) {
  std::string out = "[";
  for (size_t k = 0; k < alerts.size(); ++k) {
    if (k) out.push_back(',');
    append_alertmanager_alert(out, alerts[k], context);
  }
  out.push_back(']');
  return out;
}

}  // namespace seam::runtime
