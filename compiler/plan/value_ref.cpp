// Message holes and `with` items, resolved once against the rule's record: the runtime prints
// them by index and header value, never by looking their names up again.
#include <utility>

#include "compiler/plan/plan.hpp"

namespace seam::plan {
namespace {

constexpr std::pair<HeaderValue, const char*> kHeaderValueNames[] = {{HeaderValue::Pid, "pid"},
                                                                     {HeaderValue::Tid, "tid"},
                                                                     {HeaderValue::Comm, "comm"},
                                                                     {HeaderValue::Cgroup, "cgroup"},
                                                                     {HeaderValue::Time, "time"}};

ValueRef resolve(std::string_view name, const Record* record) {
  ValueRef ref;
  if (record)
    for (size_t i = 0; i < record->fields.size(); ++i)
      if (record->fields[i].name == name) {
        ref.field = static_cast<int>(i);
        return ref;
      }
  ref.header = header_value_named(name);
  return ref;
}

}  // namespace

HeaderValue header_value_named(std::string_view name) {
  for (const auto& [value, text] : kHeaderValueNames)
    if (name == text) return value;
  return HeaderValue::None;
}

const char* to_string(HeaderValue v) {
  for (const auto& [value, text] : kHeaderValueNames)
    if (v == value) return text;
  return "none";
}

void resolve_values(Rule& rule, const Record* record) {
  for (MessagePart& part : rule.message) part.ref = part.is_field ? resolve(part.text, record) : ValueRef{};
  for (WithItem& item : rule.with) item.ref = resolve(item.name, record);
}

void resolve_values(Plan& plan) {
  for (Rule& rule : plan.rules) {
    const Record* record = nullptr;
    for (const Record& r : plan.records)
      if (r.rule_id == rule.id) record = &r;
    resolve_values(rule, record);
  }
}

}  // namespace seam::plan
