#include "compiler/plan/plan.hpp"

#include <nlohmann/json.hpp>

namespace seam::plan {

const char* to_string(AttachKind k) {
  switch (k) {
    case AttachKind::Uprobe:
      return "uprobe";
    case AttachKind::Uretprobe:
      return "uretprobe";
    case AttachKind::Usdt:
      return "usdt";
    case AttachKind::Tracepoint:
      return "tracepoint";
    case AttachKind::RawTracepoint:
      return "raw_tracepoint";
    case AttachKind::TpBtf:
      return "tp_btf";
    case AttachKind::Kprobe:
      return "kprobe";
    case AttachKind::Kretprobe:
      return "kretprobe";
    case AttachKind::Fentry:
      return "fentry";
    case AttachKind::Fexit:
      return "fexit";
    case AttachKind::PerfEvent:
      return "perf_event";
  }
  return "?";
}

const char* to_string(Feature f) {
  switch (f) {
    case Feature::Uprobe:
      return "uprobe";
    case Feature::Tracepoint:
      return "tracepoint";
    case Feature::RawTracepoint:
      return "raw_tracepoint";
    case Feature::TpBtf:
      return "tp_btf";
    case Feature::Kprobe:
      return "kprobe";
    case Feature::Fentry:
      return "fentry";
    case Feature::PerfEvent:
      return "perf_event";
    case Feature::Usdt:
      return "usdt";
  }
  return "?";
}

const char* to_string(FieldType t) {
  switch (t) {
    case FieldType::U8:
      return "u8";
    case FieldType::U16:
      return "u16";
    case FieldType::U32:
      return "u32";
    case FieldType::U64:
      return "u64";
    case FieldType::I8:
      return "i8";
    case FieldType::I16:
      return "i16";
    case FieldType::I32:
      return "i32";
    case FieldType::I64:
      return "i64";
    case FieldType::Ptr:
      return "ptr";
    case FieldType::Bool:
      return "bool";
    case FieldType::Str:
      return "str";
    case FieldType::UStack:
      return "ustack";
    case FieldType::KStack:
      return "kstack";
    case FieldType::UStackCopy:
      return "ustack_copy";
    case FieldType::PyStack:
      return "pystack";
  }
  return "?";
}

const char* to_string(Severity s) {
  switch (s) {
    case Severity::Info:
      return "info";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
    case Severity::Critical:
      return "critical";
  }
  return "?";
}

NLOHMANN_JSON_SERIALIZE_ENUM(AttachKind, {{AttachKind::Uprobe, "uprobe"},
                                          {AttachKind::Uretprobe, "uretprobe"},
                                          {AttachKind::Usdt, "usdt"},
                                          {AttachKind::Tracepoint, "tracepoint"},
                                          {AttachKind::RawTracepoint, "raw_tracepoint"},
                                          {AttachKind::TpBtf, "tp_btf"},
                                          {AttachKind::Kprobe, "kprobe"},
                                          {AttachKind::Kretprobe, "kretprobe"},
                                          {AttachKind::Fentry, "fentry"},
                                          {AttachKind::Fexit, "fexit"},
                                          {AttachKind::PerfEvent, "perf_event"}})
NLOHMANN_JSON_SERIALIZE_ENUM(Feature, {{Feature::Uprobe, "uprobe"},
                                       {Feature::Tracepoint, "tracepoint"},
                                       {Feature::RawTracepoint, "raw_tracepoint"},
                                       {Feature::TpBtf, "tp_btf"},
                                       {Feature::Kprobe, "kprobe"},
                                       {Feature::Fentry, "fentry"},
                                       {Feature::PerfEvent, "perf_event"},
                                       {Feature::Usdt, "usdt"}})
NLOHMANN_JSON_SERIALIZE_ENUM(FieldType, {{FieldType::U8, "u8"},
                                         {FieldType::U16, "u16"},
                                         {FieldType::U32, "u32"},
                                         {FieldType::U64, "u64"},
                                         {FieldType::I8, "i8"},
                                         {FieldType::I16, "i16"},
                                         {FieldType::I32, "i32"},
                                         {FieldType::I64, "i64"},
                                         {FieldType::Ptr, "ptr"},
                                         {FieldType::Bool, "bool"},
                                         {FieldType::Str, "str"},
                                         {FieldType::UStack, "ustack"},
                                         {FieldType::KStack, "kstack"},
                                         {FieldType::UStackCopy, "ustack_copy"},
                                         {FieldType::PyStack, "pystack"}})
NLOHMANN_JSON_SERIALIZE_ENUM(FieldUnit,
                             {{FieldUnit::None, "none"}, {FieldUnit::Ns, "ns"}, {FieldUnit::Bytes, "bytes"}})
NLOHMANN_JSON_SERIALIZE_ENUM(Severity, {{Severity::Info, "info"},
                                        {Severity::Warning, "warning"},
                                        {Severity::Error, "error"},
                                        {Severity::Critical, "critical"}})
NLOHMANN_JSON_SERIALIZE_ENUM(MapType, {{MapType::Hash, "hash"},
                                       {MapType::LruHash, "lru_hash"},
                                       {MapType::Array, "array"},
                                       {MapType::PercpuArray, "percpu_array"},
                                       {MapType::Ringbuf, "ringbuf"},
                                       {MapType::StackTrace, "stack_trace"},
                                       {MapType::TaskStorage, "task_storage"}})

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LibraryPattern, executable, glob)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Library, name, module, patterns, path)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Attachment, program, kind, feature, library, symbols, offset,
                                                category, name, perf_type, perf_config, perf_period,
                                                perf_frequency, fallback, is_fallback, rules, origin,
                                                span_begins)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Field, name, type, unit, offset, size, enum_name)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Record, rule_id, size, fields)
inline void to_json(nlohmann::json& j, HeaderValue v) {
  j = to_string(v);
}
inline void from_json(const nlohmann::json& j, HeaderValue& v) {
  v = header_value_named(j.get<std::string>());
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ValueRef, field, header)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MessagePart, is_field, text, ref)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(WithItem, name, ref)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Rule, id, name, file, line, severity, event, message, with,
                                                limit_count, limit_per_ns, windowed, pending_ns, pending_map,
                                                group_ns, limit_per_process, scope)
NLOHMANN_JSON_SERIALIZE_ENUM(MetricKind, {{MetricKind::Count, "count"},
                                          {MetricKind::Sum, "sum"},
                                          {MetricKind::Hist, "hist"}})
NLOHMANN_JSON_SERIALIZE_ENUM(WindowFunction, {{WindowFunction::Quantile, "quantile"},
                                              {WindowFunction::Avg, "avg"},
                                              {WindowFunction::Min, "min"},
                                              {WindowFunction::Max, "max"},
                                              {WindowFunction::Count, "count"},
                                              {WindowFunction::Rate, "rate"},
                                              {WindowFunction::Sum, "sum"}})
NLOHMANN_JSON_SERIALIZE_ENUM(Compare, {{Compare::Gt, ">"},
                                       {Compare::Ge, ">="},
                                       {Compare::Lt, "<"},
                                       {Compare::Le, "<="},
                                       {Compare::Eq, "=="},
                                       {Compare::Ne, "!="}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MetricLabel, name, type, offset, size, enum_name)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Metric, name, map, kind, unit, labels, key_size, value_size,
                                                per_cpu, max_series, help, origin, scope)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Window, rule_id, function, quantile, metric, window_ns,
                                                compare, threshold)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(MemoryReader, reader, state, map, library, origin)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(IdentityTest, field, prefix, value)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UnavailableRule, name, metric, origin, reason)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Map, name, type, key_size, value_size, max_entries, purpose,
                                                contents)

std::optional<Severity> severity_named(std::string_view word) {
  for (Severity s : kSeverities)
    if (word == to_string(s)) return s;
  return std::nullopt;
}

NLOHMANN_JSON_SERIALIZE_ENUM(OutputKind, {{OutputKind::Stdout, "stdout"},
                                          {OutputKind::Json, "json"},
                                          {OutputKind::Webhook, "webhook"}})
NLOHMANN_JSON_SERIALIZE_ENUM(WebhookFormat, {{WebhookFormat::Default, ""},
                                             {WebhookFormat::Json, "json"},
                                             {WebhookFormat::Alertmanager, "alertmanager"}})
NLOHMANN_JSON_SERIALIZE_ENUM(RouteCondition::Kind, {{RouteCondition::Kind::Const, "const"},
                                                    {RouteCondition::Kind::Not, "not"},
                                                    {RouteCondition::Kind::And, "and"},
                                                    {RouteCondition::Kind::Or, "or"},
                                                    {RouteCondition::Kind::Severity, "severity"},
                                                    {RouteCondition::Kind::Rule, "rule"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Output, name, kind, target, format, origin)

void to_json(nlohmann::json& j, const RouteCondition& c) {
  j = nlohmann::json{{"kind", c.kind}};
  if (c.kind == RouteCondition::Kind::Const) j["value"] = c.value;
  if (c.kind == RouteCondition::Kind::Severity) j["severity"] = c.severity;
  if (c.kind == RouteCondition::Kind::Severity || c.kind == RouteCondition::Kind::Rule)
    j["compare"] = c.compare;
  if (c.kind == RouteCondition::Kind::Rule) {
    j["text"] = c.text;
    j["prefix"] = c.prefix;
  }
  if (!c.operands.empty()) j["operands"] = c.operands;
}

void from_json(const nlohmann::json& j, RouteCondition& c) {
  j.at("kind").get_to(c.kind);
  c.value = j.value("value", false);
  if (j.contains("severity")) j.at("severity").get_to(c.severity);
  if (j.contains("compare")) j.at("compare").get_to(c.compare);
  c.text = j.value("text", std::string());
  c.prefix = j.value("prefix", false);
  if (j.contains("operands")) j.at("operands").get_to(c.operands);
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Route, condition, outputs, origin)

void to_json(nlohmann::json& j, const Plan& p) {
  j = nlohmann::json{{"libraries", p.libraries}, {"attachments", p.attachments},
                     {"maps", p.maps},           {"rules", p.rules},
                     {"records", p.records},     {"ringbuf_map", p.ringbuf_map},
                     {"drops_map", p.drops_map}, {"ringbuf_bytes", p.ringbuf_bytes},
                     {"metrics", p.metrics},     {"windows", p.windows}};
  if (!p.enums.empty()) j["enums"] = p.enums;
  if (p.target_tgid) j["target_tgid"] = p.target_tgid;
  if (p.target_cgroup) j["target_cgroup"] = p.target_cgroup;
  if (p.raw_sched_programs) j["raw_sched_programs"] = true;
  for (const Scope& s : p.scopes)
    j["scopes"].push_back({{"kind", to_string(s.kind)}, {"argument", s.argument}, {"origin", s.origin}});
  if (!p.workload_libraries.empty()) j["workload_libraries"] = p.workload_libraries;
  if (!p.memory_readers.empty()) j["memory_readers"] = p.memory_readers;
  if (!p.identity_tests.empty()) j["identity_tests"] = p.identity_tests;
  if (!p.unavailable_rules.empty()) j["unavailable_rules"] = p.unavailable_rules;
  if (!p.outputs.empty()) j["outputs"] = p.outputs;
  if (!p.routes.empty()) j["routes"] = p.routes;
}

void from_json(const nlohmann::json& j, Plan& p) {
  j.at("libraries").get_to(p.libraries);
  j.at("attachments").get_to(p.attachments);
  j.at("maps").get_to(p.maps);
  j.at("rules").get_to(p.rules);
  j.at("records").get_to(p.records);
  j.at("ringbuf_map").get_to(p.ringbuf_map);
  j.at("drops_map").get_to(p.drops_map);
  j.at("ringbuf_bytes").get_to(p.ringbuf_bytes);
  if (j.contains("metrics")) j.at("metrics").get_to(p.metrics);
  if (j.contains("windows")) j.at("windows").get_to(p.windows);
  if (j.contains("enums")) j.at("enums").get_to(p.enums);
  p.target_tgid = j.value("target_tgid", uint32_t{0});
  p.target_cgroup = j.value("target_cgroup", uint64_t{0});
  p.raw_sched_programs = j.value("raw_sched_programs", false);
  if (j.contains("memory_readers")) j.at("memory_readers").get_to(p.memory_readers);
  if (j.contains("identity_tests")) j.at("identity_tests").get_to(p.identity_tests);
  if (j.contains("unavailable_rules")) j.at("unavailable_rules").get_to(p.unavailable_rules);
  if (j.contains("scopes"))
    for (const nlohmann::json& s : j.at("scopes")) {
      Scope& scope = p.scopes.emplace_back();
      std::string kind = s.at("kind").get<std::string>();
      for (ScopeKind k : {ScopeKind::Host, ScopeKind::Workload, ScopeKind::Cgroup, ScopeKind::Comm})
        if (kind == to_string(k)) scope.kind = k;
      s.at("argument").get_to(scope.argument);
      s.at("origin").get_to(scope.origin);
    }
  if (j.contains("workload_libraries")) j.at("workload_libraries").get_to(p.workload_libraries);
  if (j.contains("outputs")) j.at("outputs").get_to(p.outputs);
  if (j.contains("routes")) j.at("routes").get_to(p.routes);
}

const char* to_string(ScopeKind k) {
  switch (k) {
    case ScopeKind::Host:
      return "host";
    case ScopeKind::Workload:
      return "workload";
    case ScopeKind::Cgroup:
      return "cgroup";
    case ScopeKind::Comm:
      return "comm";
  }
  return "host";
}

}  // namespace seam::plan
