#include "runtime/output/stdout_sink.hpp"

#include "runtime/output/format.hpp"
#include "runtime/output/value_text.hpp"

namespace seam::runtime {
namespace {

bool needs_quotes(std::string_view s) {
  if (s.empty()) return true;
  for (char c : s)
    if (c == ' ' || c == '"' || c == '=' || static_cast<unsigned char>(c) < 0x20) return true;
  return false;
}

// key=value, quoting values that would break the key=value reading (spaces, empty, control).
void append_key_value(std::string& out, std::string_view key, std::string_view value) {
  out.push_back(' ');
  out.append(key);
  out.push_back('=');
  if (!needs_quotes(value)) return out.append(value), void();
  out.push_back('"');
  for (char c : value) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(static_cast<unsigned char>(c) < 0x20 ? '?' : c);
  }
  out.push_back('"');
}

// A name from the traced process's memory must not forge a line or a terminal escape.
void append_printable(std::string& out, std::string_view s) {
  for (char c : s) out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
}

void append_frame(std::string& out, size_t index, const StackFrame& frame) {
  out.append("    #");
  format::append_uint(out, index);
  out.push_back(' ');
  if (frame.python) {  // as a Python traceback says it
    out.append("File \"");
    append_printable(out, frame.file);
    out.append("\", line ");
    if (frame.line >= 0)
      format::append_uint(out, static_cast<uint64_t>(frame.line));
    else
      out.push_back('?');
    out.append(", in ");
    append_printable(out, frame.symbol);
    out.push_back('\n');
    return;
  }
  format::append_hex(out, frame.addr);
  out.append("  ");
  if (frame.symbol.empty()) {
    out.append("??");
  } else {
    out.append(frame.symbol);
    out.push_back('+');
    format::append_hex(out, frame.offset);
  }
  if (!frame.module.empty()) {
    out.append(" (");
    out.append(frame.module);
    out.push_back(')');
  }
  out.push_back('\n');
}

}  // namespace

void append_alert_text(std::string& out, const Alert& alert) {
  format::append_rfc3339_ms(out, alert.time_ns);
  out.push_back(' ');
  out.append(plan::to_string(alert.severity));
  out.push_back(' ');
  out.append(alert.rule);
  if (alert.status == kResolved) out.append(" resolved");
  out.append(": ");
  out.append(alert.message);
  out.push_back(' ');  // two spaces between the message and the key=value part
  std::string value;
  if (alert.has_task) {
    format::append_uint(value, alert.pid);
    append_key_value(out, "pid", value);
    value.clear();
    format::append_uint(value, alert.tid);
    append_key_value(out, "tid", value);
    append_key_value(out, "comm", alert.comm);
  }
  if (!alert.status.empty()) append_key_value(out, "status", alert.status);
  if (!alert.container_name.empty())
    append_key_value(out, "container", alert.container_name);
  else if (!alert.container_id.empty())
    append_key_value(out, "container", alert.container_id.substr(0, 12));
  if (!alert.pod_name.empty())
    append_key_value(out, "pod", alert.pod_namespace + "/" + alert.pod_name);
  else if (!alert.pod_uid.empty())
    append_key_value(out, "pod", alert.pod_uid);
  for (const auto& field : alert.fields) {
    if (!field.text.empty()) {
      append_key_value(out, field.name, field.text);
      continue;
    }
    value.clear();
    append_value_text(value, field.value, field.enum_name);
    append_key_value(out, field.name, value);
  }
  if (alert.suppressed > 0) {
    out.append(" (");
    format::append_uint(out, alert.suppressed);
    out.append(" similar suppressed)");
  }
  if (alert.count > 1) {  // a group's summary
    out.append(" (");
    format::append_uint(out, alert.count);
    out.append(" identical alerts in the group, ");
    format::append_uint(out, alert.count - 1);
    out.append(" suppressed)");
  }
  out.push_back('\n');
  for (const auto& stack : alert.stacks) {
    if (alert.stacks.size() > 1) {
      out.append("  ");
      out.append(stack.name);
      out.append(":\n");
    }
    for (size_t i = 0; i < stack.frames.size(); ++i) append_frame(out, i, stack.frames[i]);
    if (!stack.truncated.empty()) {
      out.append("    [");
      out.append(stack.truncated);
      out.append("]\n");
    }
  }
}

StdoutSink::StdoutSink(int out_fd, int notice_fd)
    : out_(out_fd, false, size_t{64} * 1024, "stdout"), notices_(notice_fd, false, 0) {}

void StdoutSink::write(const Alert& alert) {
  append_alert_text(out_.buffer(), alert);
  out_.line_done();
}

void StdoutSink::write_notice(const Notice& notice) {
  if (notices_.fd() == kNoNotices) return;
  out_.flush();  // keep notices in order with the alerts before them
  std::string& line = notices_.buffer();
  line.append("seam: ");
  line.append(plan::to_string(notice.severity));
  line.append(": ");
  // The runtime's messages usually name the rule already ("rule X: 12 records dropped").
  if (notice.rule && !notice.message.starts_with("rule " + *notice.rule)) {
    line.append("rule ");
    line.append(*notice.rule);
    line.append(": ");
  }
  line.append(notice.message);
  line.push_back('\n');
  notices_.flush();
}

}  // namespace seam::runtime
