#pragma once
// Records the kernel side could not deliver (ring buffer full), per rule: totals since load and
// what is new since the last look, for "rule X dropped N events" notices.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/load/loaded_object.hpp"

namespace seam::runtime {

struct RuleDrops {
  uint32_t rule_id = 0;
  uint64_t dropped = 0;
};

class DropCounters {
 public:
  explicit DropCounters(const LoadedObject& object) : object_(object) {}

  // Rules with drops since the previous call (or since load, the first time), and how many.
  // Empty with *error set when the counters cannot be read.
  std::vector<RuleDrops> new_drops(std::string* error = nullptr);
  // Total drops per rule id since load.
  std::vector<uint64_t> totals(std::string* error = nullptr) const { return object_.drop_counts(error); }
  uint64_t total(std::string* error = nullptr) const;

 private:
  const LoadedObject& object_;
  std::vector<uint64_t> last_;
};

}  // namespace seam::runtime
