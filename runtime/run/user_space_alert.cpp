#include "runtime/run/user_space_alert.hpp"

#include <time.h>

#include <cmath>
#include <fstream>

#include "runtime/output/format.hpp"

namespace seam::runtime {

namespace {

std::string value_text(const UserSpaceValue& v) {
  std::string out;
  if (v.unit == plan::FieldUnit::Ns)
    format::append_duration(out, static_cast<int64_t>(std::llround(v.value)));
  else if (v.unit == plan::FieldUnit::Bytes)
    format::append_bytes(out, static_cast<uint64_t>(std::llround(v.value)));
  else if (v.value == std::floor(v.value))
    format::append_int(out, static_cast<int64_t>(v.value));
  else
    out = std::to_string(v.value);
  return out;
}

}  // namespace

void make_user_space_alert(const plan::Rule& rule, uint32_t pid, uint32_t tid, const std::string& comm,
                           const std::vector<UserSpaceValue>& values,
                           const std::vector<std::pair<std::string, std::string>>& labels, Alert& out) {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  out.time_ns = static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
  out.severity = rule.severity;
  out.rule = rule.name;
  out.file = rule.file;
  out.line = rule.line;
  out.pid = pid;
  out.tid = tid;
  out.comm = comm;
  out.cgroup = 0;
  out.suppressed = 0;
  out.stacks.clear();
  out.fields.clear();
  out.message.clear();
  for (const plan::MessagePart& part : rule.message) {
    if (!part.is_field) {
      out.message += part.text;
      continue;
    }
    bool found = false;
    for (const UserSpaceValue& v : values)
      if (v.name == part.text) {
        out.message += value_text(v);
        found = true;
      }
    for (const auto& [k, text] : labels)
      if (!found && k == part.text) {
        out.message += text;
        found = true;
      }
    if (!found && part.ref.header == plan::HeaderValue::Pid) out.message += std::to_string(pid), found = true;
    if (!found && part.ref.header == plan::HeaderValue::Tid) out.message += std::to_string(tid), found = true;
    if (!found && part.ref.header == plan::HeaderValue::Comm) out.message += comm, found = true;
    if (!found) out.message += "{" + part.text + "}";
  }
  for (const UserSpaceValue& v : values) {
    AlertField f;
    f.name = v.name;
    // Typed as a whole number of base units (ns, bytes); `text` keeps any fraction for people.
    f.value =
        Value{static_cast<uint64_t>(std::llround(std::max(0.0, v.value))), v.unit, plan::FieldType::U64};
    f.text = value_text(v);
    out.fields.push_back(std::move(f));
  }
  for (const auto& [k, text] : labels) {
    AlertField f;
    f.name = k;
    f.value = Value{text, plan::FieldUnit::None, plan::FieldType::Str};
    f.text = text;
    out.fields.push_back(std::move(f));
  }
}

std::pair<uint32_t, std::string> task_identity(uint32_t tid) {
  std::string comm;
  std::ifstream(std::string("/proc/") + std::to_string(tid) + "/comm") >> comm;
  uint32_t pid = tid;
  std::ifstream status(std::string("/proc/") + std::to_string(tid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("Tgid:", 0) == 0) {
      pid = static_cast<uint32_t>(std::strtoul(line.c_str() + 5, nullptr, 10));
      break;
    }
  return {pid, comm};
}

}  // namespace seam::runtime
