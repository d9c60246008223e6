#include "runtime/output/json_sink.hpp"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <cctype>

#include "runtime/output/format.hpp"
#include "runtime/output/json_text.hpp"

namespace seam::runtime {
namespace {

using json_text::append_key;
using json_text::append_literal;
using json_text::append_string;

// Fields are named as in the rule; their units (ns for durations, bytes for sizes) are the
// schema's (docs/outputs.md).
void append_field_key(std::string& out, const AlertField& field, bool first) {
  append_key(out, field.name, first);
}

// The host's name, read once (hostnames do not change under a running seam).
const std::string& hostname() {
  static const std::string name = [] {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) return std::string();
    return std::string(buf);
  }();
  return name;
}

void append_field_value(std::string& out, const Value& value) {
  if (const auto* u = std::get_if<uint64_t>(&value.v)) {
    if (value.type != plan::FieldType::Ptr) return format::append_uint(out, *u);
    out.push_back('"');
    format::append_hex(out, *u);
    out.push_back('"');
    return;
  }
  if (const auto* i = std::get_if<int64_t>(&value.v)) return format::append_int(out, *i);
  if (const auto* b = std::get_if<bool>(&value.v)) return out.append(*b ? "true" : "false"), void();
  if (const auto* s = std::get_if<std::string>(&value.v)) return append_string(out, *s);
  if (const auto* stack = std::get_if<std::vector<uint64_t>>(&value.v)) {
    out.push_back('[');
    for (size_t k = 0; k < stack->size(); ++k) {
      if (k) out.push_back(',');
      out.append("\"");
      format::append_hex(out, (*stack)[k]);
      out.append("\"");
    }
    out.push_back(']');
  }
}

void append_stack(std::string& out, const AlertStack& stack) {
  append_key(out, stack.name);
  out.push_back('[');
  for (size_t k = 0; k < stack.frames.size(); ++k) {
    const StackFrame& f = stack.frames[k];
    if (k) out.push_back(',');
    if (f.python)
      append_literal(out, "{\"kind\":\"python\",\"addr\":\"");
    else if (stack.kernel)
      append_literal(out, "{\"kind\":\"kernel\",\"addr\":\"");
    else
      append_literal(out, "{\"kind\":\"native\",\"addr\":\"");
    format::append_hex(out, f.addr);
    out.push_back('"');
    append_literal(out, ",\"function\":");
    append_string(out, f.symbol);
    append_literal(out, ",\"symbol\":");
    append_string(out, f.symbol);
    append_literal(out, ",\"offset\":");
    format::append_uint(out, f.offset);
    append_literal(out, ",\"module\":");
    append_string(out, f.module);
    append_literal(out, ",\"file\":");
    if (f.python)
      append_string(out, f.file);
    else
      append_literal(out, "null");
    append_literal(out, ",\"line\":");
    if (f.python && f.line >= 0)
      format::append_uint(out, static_cast<uint64_t>(f.line));
    else
      append_literal(out, "null");
    out.push_back('}');
  }
  if (!stack.truncated.empty()) {  // why the stack stops early: a marker, never a frame
    if (!stack.frames.empty()) out.push_back(',');
    append_literal(out, "{\"kind\":\"truncated\",\"reason\":");
    append_string(out, stack.truncated);
    out.push_back('}');
  }
  out.push_back(']');
}

// An enum-typed field whose value has a name (a value the enum does not name stays a number).
bool is_enum_name(const AlertField& f) {
  return !f.enum_name.empty() && !f.text.empty() &&
         (std::isalpha(static_cast<unsigned char>(f.text[0])) || f.text[0] == '_');
}

}  // namespace

void append_alert_json(std::string& out, const Alert& a) {
  out.push_back('{');
  append_literal(out, "\"schema\":");
  format::append_int(out, kJsonSchemaVersion);
  append_literal(out, ",\"time\":");
  out.push_back('"');
  format::append_rfc3339_ms(out, a.time_ns);
  out.push_back('"');
  // A string: ns since the epoch exceed 2^53, which JSON numbers (jq, JavaScript) round.
  append_literal(out, ",\"time_ns\":\"");
  format::append_int(out, a.time_ns);
  out.push_back('"');
  append_literal(out, ",\"hostname\":");
  append_string(out, hostname());
  append_literal(out, ",\"severity\":");
  append_string(out, plan::to_string(a.severity));
  append_literal(out, ",\"rule\":");
  append_string(out, a.rule);
  append_literal(out, ",\"file\":");
  append_string(out, a.file);
  append_literal(out, ",\"line\":");
  format::append_uint(out, a.line);
  append_literal(out, ",\"message\":");
  append_string(out, a.message);
  if (!a.status.empty()) {  // windowed rules: a state over a series
    append_literal(out, ",\"status\":");
    append_string(out, a.status);
    append_literal(out, ",\"starts_at\":\"");
    format::append_rfc3339_ms(out, a.starts_ns);
    out.push_back('"');
  }
  if (a.has_task) {
    append_literal(out, ",\"pid\":");
    format::append_uint(out, a.pid);
    append_literal(out, ",\"tid\":");
    format::append_uint(out, a.tid);
    append_literal(out, ",\"comm\":");
    append_string(out, a.comm);
  }
  if (a.has_task || a.cgroup) {
    append_literal(out, ",\"cgroup\":");
    format::append_uint(out, a.cgroup);
  }
  for (const auto& [key, value] : {std::pair<const char*, const std::string*>{"cgroup_path", &a.cgroup_path},
                                   {"container_id", &a.container_id},
                                   {"container_name", &a.container_name},
                                   {"pod_uid", &a.pod_uid},
                                   {"pod_name", &a.pod_name},
                                   {"pod_namespace", &a.pod_namespace}})
    if (!value->empty()) {
      append_key(out, key);
      append_string(out, *value);
    }
  append_literal(out, ",\"fields\":");
  out.push_back('{');
  for (size_t k = 0; k < a.fields.size(); ++k) {
    append_field_key(out, a.fields[k], k == 0);
    if (is_enum_name(a.fields[k]))
      append_string(out, a.fields[k].text);  // "kind":"cudaMemcpyHostToDevice"
    else
      append_field_value(out, a.fields[k].value);
  }
  out.push_back('}');
  for (const auto& stack : a.stacks) append_stack(out, stack);
  append_literal(out, ",\"suppressed\":");
  format::append_uint(out, a.suppressed);
  if (a.count > 0) {  // rules with `group within D`
    append_literal(out, ",\"count\":");
    format::append_uint(out, a.count);
  }
  out.append("}\n");
}

void append_notice_json(std::string& out, const Notice& n) {
  out.push_back('{');
  append_literal(out, "\"schema\":");
  format::append_int(out, kJsonSchemaVersion);
  append_literal(out, ",\"notice\":");
  append_string(out, n.kind);
  append_literal(out, ",\"hostname\":");
  append_string(out, hostname());
  append_literal(out, ",\"severity\":");
  append_string(out, plan::to_string(n.severity));
  append_literal(out, ",\"message\":");
  append_string(out, n.message);
  if (n.rule) {
    append_literal(out, ",\"rule\":");
    append_string(out, *n.rule);
  }
  if (n.count > 0) {
    append_literal(out, ",\"count\":");
    format::append_uint(out, n.count);
  }
  if (!n.output.empty()) {
    append_literal(out, ",\"output\":");
    append_string(out, n.output);
  }
  out.append("}\n");
}

JsonSink::JsonSink(int fd, bool owns_fd, std::string path)
    : path_(std::move(path)),
      out_(fd, owns_fd, size_t{64} * 1024, path_.empty() ? "json" : "json:" + path_) {}

namespace {
int open_output(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}
}  // namespace

Result<std::unique_ptr<Sink>> JsonSink::open_file(const std::string& path) {
  int fd = open_output(path);
  if (fd < 0) return Error{"cannot open JSON output file '" + path + "': " + strerror(errno)};
  return std::unique_ptr<Sink>(new JsonSink(fd, true, path));
}

// logrotate moves the file away and signals: the next line goes to a file at the path again.
void JsonSink::reopen() {
  if (path_.empty()) return;
  int fd = open_output(path_);
  if (fd < 0) {
    std::string line =
        "seam: output " + name() + ": cannot reopen (" + strerror(errno) + "); writing on to the old file\n";
    [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
    return;
  }
  out_.replace_fd(fd);
}

void JsonSink::write(const Alert& alert) {
  append_alert_json(out_.buffer(), alert);
  out_.line_done();
}

void JsonSink::write_notice(const Notice& notice) {
  append_notice_json(out_.buffer(), notice);
  out_.line_done();
}

}  // namespace seam::runtime
