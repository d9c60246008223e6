#include "runtime/decode/decoder.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/decode/field_reader.hpp"
#include "runtime/decode/wall_clock.hpp"

namespace seam::runtime {
namespace {

// Ids below this go in the dense vector; a plan has a few dozen rules, so this is generous.
constexpr uint32_t kDenseLimit = 1u << 16;

namespace header = plan::record_header;

std::string rule_label(const plan::Rule& rule) {
  return "rule '" + rule.name + "' (id " + std::to_string(rule.id) + ")";
}

}  // namespace

const DecodedField* DecodedRecord::find(std::string_view name) const {
  for (const auto& f : fields)
    if (f.field->name == name) return &f;
  return nullptr;
}

Decoder::Decoder(const plan::Plan& plan) : Decoder(plan, monotonic_to_realtime_offset_ns()) {}

Decoder::Decoder(const plan::Plan& plan, int64_t monotonic_to_realtime_ns)
    : plan_(plan), offset_ns_(monotonic_to_realtime_ns) {
  for (const auto& rule : plan.rules) slot(rule.id).rule = &rule;
  for (const auto& record : plan.records) {
    Entry& e = slot(record.rule_id);
    e.record = &record;
    e.extent = std::max(record.size, plan::kRecordHeaderSize);
    for (const auto& field : record.fields)
      e.extent = std::max(e.extent, field.offset + field_read_size(field));
  }
}

Decoder::Entry& Decoder::slot(uint32_t rule_id) {
  if (rule_id >= kDenseLimit) return sparse_[rule_id];
  if (rule_id >= dense_.size()) dense_.resize(rule_id + 1);
  return dense_[rule_id];
}

const Decoder::Entry* Decoder::find(uint32_t rule_id) const {
  if (rule_id < dense_.size()) return &dense_[rule_id];
  auto it = sparse_.find(rule_id);
  return it == sparse_.end() ? nullptr : &it->second;
}

const plan::Rule* Decoder::find_rule(uint32_t rule_id) const {
  const Entry* e = find(rule_id);
  return e ? e->rule : nullptr;
}

std::optional<uint32_t> Decoder::peek_rule_id(std::span<const uint8_t> bytes) {
  if (bytes.size() < header::kRuleId.end()) return std::nullopt;
  auto raw = plan::read_header<uint32_t>(bytes, header::kRuleId);
  return raw == plan::kExecNoticeRuleId ? raw : raw & plan::kRuleIdMask;
}

std::optional<Error> Decoder::decode_into(std::span<const uint8_t> bytes, DecodedRecord& out) const {
  if (bytes.size() < plan::kRecordHeaderSize)
    return Error{"record of " + std::to_string(bytes.size()) + " bytes is shorter than the " +
                 std::to_string(plan::kRecordHeaderSize) + "-byte record header"};
  const uint8_t* p = bytes.data();
  const uint32_t rule_id =
      plan::read_header<uint32_t>(bytes, header::kRuleId) & plan::kRuleIdMask;  // no unit tag
  const Entry* entry = find(rule_id);
  if (!entry || !entry->record || !entry->rule)
    return Error{"record for unknown rule id " + std::to_string(rule_id) + " (not in this plan)"};
  const auto size = plan::read_header<uint32_t>(bytes, header::kSize);
  if (size != bytes.size())
    return Error{"record for " + rule_label(*entry->rule) + " says it is " + std::to_string(size) +
                 " bytes but " + std::to_string(bytes.size()) + " arrived"};
  if (bytes.size() < entry->extent)
    return Error{"record for " + rule_label(*entry->rule) + " is " + std::to_string(bytes.size()) +
                 " bytes, shorter than its " + std::to_string(entry->extent) + "-byte layout"};

  out.rule = entry->rule;
  out.record = entry->record;
  out.rule_id = rule_id;
  out.size = size;
  out.time_ns = plan::read_header<uint64_t>(bytes, header::kTimeNs);
  out.wall_ns = static_cast<int64_t>(out.time_ns) + offset_ns_;
  out.pid = plan::read_header<uint32_t>(bytes, header::kPid);
  out.tid = plan::read_header<uint32_t>(bytes, header::kTid);
  out.cgroup = plan::read_header<uint64_t>(bytes, header::kCgroup);
  const uint8_t* comm = p + header::kComm.offset;
  const void* nul = std::memchr(comm, 0, header::kComm.size);
  out.comm.assign(reinterpret_cast<const char*>(comm),
                  nul ? static_cast<const uint8_t*>(nul) - comm : header::kComm.size);

  const auto& fields = entry->record->fields;
  out.fields.resize(fields.size());
  for (size_t i = 0; i < fields.size(); ++i) {
    out.fields[i].field = &fields[i];
    read_field(fields[i], p, out.fields[i].value);
  }
  return std::nullopt;
}

Result<DecodedRecord> Decoder::decode(std::span<const uint8_t> bytes) const {
  DecodedRecord out;
  if (auto error = decode_into(bytes, out)) return std::move(*error);
  return out;
}

Result<DecodedRecord> decode_record(const plan::Plan& plan, std::span<const uint8_t> bytes) {
  return Decoder(plan).decode(bytes);
}

}  // namespace seam::runtime
