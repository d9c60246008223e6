#pragma once
// Turns ring-buffer records into DecodedRecords using the plan's layouts alone. The index from
// rule id to (rule, record) is built once; decoding is then O(fields), and decode_into reuses
// the caller's record so a steady stream allocates nothing after the first few records.
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/decode/decoded_record.hpp"
#include "runtime/decode/result.hpp"

namespace seam::runtime {

class Decoder {
 public:
  // Samples the monotonic→realtime clock offset now.
  explicit Decoder(const plan::Plan& plan);
  // With a fixed offset (tests, replay): wall_ns = time_ns + offset.
  Decoder(const plan::Plan& plan, int64_t monotonic_to_realtime_ns);

  Result<DecodedRecord> decode(std::span<const uint8_t> bytes) const;
  // Decodes into `out`, reusing its strings and vectors; on error `out` is unspecified.
  std::optional<Error> decode_into(std::span<const uint8_t> bytes, DecodedRecord& out) const;

  // The rule with this id (also rules without a record, e.g. windowed ones), or nullptr.
  const plan::Rule* find_rule(uint32_t rule_id) const;
  int64_t clock_offset_ns() const { return offset_ns_; }
  const plan::Plan& plan() const { return plan_; }

  // The rule id in a record's header, when the record is long enough to hold one.
  static std::optional<uint32_t> peek_rule_id(std::span<const uint8_t> bytes);

 private:
  struct Entry {
    const plan::Rule* rule = nullptr;
    const plan::Record* record = nullptr;
    uint32_t extent = 0;  // bytes the layout reads: max(record size, end of every field)
  };
  const Entry* find(uint32_t rule_id) const;
  Entry& slot(uint32_t rule_id);

  const plan::Plan& plan_;
  int64_t offset_ns_;
  // Rule ids are small and dense in practice: a vector indexed by id, a map for outliers.
  std::vector<Entry> dense_;
  std::unordered_map<uint32_t, Entry> sparse_;
};

// One-off convenience: builds a Decoder (index and clock offset) per call. Use Decoder in loops.
Result<DecodedRecord> decode_record(const plan::Plan& plan, std::span<const uint8_t> bytes);

}  // namespace seam::runtime
