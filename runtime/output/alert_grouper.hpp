#pragma once
// `group within D` for one rule: identical alerts (same rule, same process, same stack) within D
// of the first become one. The first is written at once; repeats in the window are only counted.
// When the window has ended (the pipeline looks at every flush), at the next identical alert, or
// at exit, a group with repeats is reported by a summary: a copy of its first alert whose `count`
// is the group's size (first + repeats), timed at the last repeat. Time is passed in (monotonic
// ns) so tests decide it.
//
// Identity is a 64-bit FNV-1a hash of the pid and the stack addresses before symbolization (a
// rule without a stack groups by pid). At most max_groups groups are open at once per rule;
// beyond that, alerts of new identities are written ungrouped rather than held in memory.
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "runtime/decode/decoded_record.hpp"
#include "runtime/output/alert.hpp"

namespace seam::runtime {

class AlertGrouper {
 public:
  explicit AlertGrouper(int64_t window_ns, size_t max_groups = 4096)
      : window_ns_(window_ns), max_groups_(max_groups) {}

  static uint64_t key(const DecodedRecord& record);
  static uint64_t key(const Alert& alert);

  struct Admission {
    bool write = true;     // false: a repeat, counted in its group
    bool grouped = false;  // written as the first of a new group: pass it to opened()
  };
  // `summaries` receives the report of this key's previous group when its window has ended.
  Admission admit(uint64_t key, int64_t now_ns, int64_t wall_ns, std::vector<Alert>& summaries);
  // The first alert of the group admit() just opened (as written, symbolized), kept for its summary.
  void opened(uint64_t key, const Alert& first);

  // Summaries of the groups whose window has ended by `now_ns` (with `all`, of every group);
  // those groups are closed. A group without repeats closes without a summary.
  void take_ended(int64_t now_ns, bool all, std::vector<Alert>& summaries);

  size_t open_groups() const { return groups_.size(); }

 private:
  struct Group {
    int64_t start_ns = 0;
    uint64_t repeats = 0;
    int64_t last_wall_ns = 0;
    bool has_first = false;
    Alert first;
  };
  void summarize(Group& g, std::vector<Alert>& summaries);

  int64_t window_ns_;
  size_t max_groups_;
  std::unordered_map<uint64_t, Group> groups_;
};

}  // namespace seam::runtime
