#pragma once
// A ring-buffer record decoded with the plan's layout: the header, then one typed value per
// field in layout order. Names and units point into the plan, which must outlive the record.
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "compiler/plan/plan.hpp"

namespace seam::runtime {

struct Value {
  // u8..u64 and ptr: uint64_t; i8..i64: int64_t (sign-extended); bool; str: std::string;
  // ustack/kstack: the instruction pointers, count clamped to the array.
  std::variant<uint64_t, int64_t, bool, std::string, std::vector<uint64_t>> v;
  plan::FieldUnit unit = plan::FieldUnit::None;
  plan::FieldType type = plan::FieldType::U64;
};

struct DecodedField {
  const plan::Field* field = nullptr;  // its name, unit and enum_name
  Value value;
};

struct DecodedRecord {
  const plan::Rule* rule = nullptr;
  const plan::Record* record = nullptr;
  uint32_t rule_id = 0;
  uint32_t size = 0;
  uint64_t time_ns = 0;  // as recorded: CLOCK_MONOTONIC
  int64_t wall_ns = 0;   // CLOCK_REALTIME ns since the epoch
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t cgroup = 0;
  std::string comm;
  std::vector<DecodedField> fields;  // layout order

  // The field named `name`, or nullptr.
  const DecodedField* find(std::string_view name) const;
};

}  // namespace seam::runtime
