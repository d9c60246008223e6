#pragma once
// `where pending > 60s`: a collective that never returns never reaches a return probe, so it
// is found by scanning the span's in-flight map from user space, once a second.
#include <functional>
#include <set>
#include <string>
#include <tuple>

#include "compiler/plan/plan.hpp"
#include "runtime/output/alert.hpp"

namespace seam::runtime {

class PendingScanner {
 public:
  // `map_fd` gives the fd of a map by name (LoadedObject::map_fd).
  PendingScanner(const plan::Plan& plan, const std::function<int(const std::string&)>& map_fd);
  bool empty() const { return rules_.empty(); }
  // Emits an alert for every span in flight longer than its rule's bound, once per span.
  void scan(const std::function<void(uint32_t rule_id, Alert&)>& emit);

  // The spans already reported, by rule name (rule ids are the set's own), and a reload's next
  // scanner taking them over: the in-flight map is kept across the reload, so are its spans.
  using ReportedByName = std::set<std::tuple<std::string, uint32_t, uint64_t>>;  // (rule, key, start)
  ReportedByName reported_by_name() const;
  void already_reported(const ReportedByName& spans);

 private:
  struct Watched {
    const plan::Rule* rule;
    int fd;
    uint32_t value_size;
  };
  std::vector<Watched> rules_;
  std::set<std::tuple<uint32_t, uint32_t, uint64_t>> reported_;  // (rule, key, start)
  Alert alert_;
};

}  // namespace seam::runtime
