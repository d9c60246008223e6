#include "runtime/output/alert_grouper.hpp"

#include <algorithm>
#include <variant>

namespace seam::runtime {
namespace {

constexpr uint64_t kFnvOffset = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

void mix(uint64_t& h, uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= kFnvPrime;
  }
}

}  // namespace

uint64_t AlertGrouper::key(const DecodedRecord& record) {
  uint64_t h = kFnvOffset;
  mix(h, record.pid);
  for (const DecodedField& f : record.fields)
    if (const auto* addrs = std::get_if<std::vector<uint64_t>>(&f.value.v)) {
      mix(h, addrs->size());  // separates the stacks of a record
      for (uint64_t a : *addrs) mix(h, a);
    } else if (f.field->type == plan::FieldType::PyStack) {  // code objects and instructions
      if (const auto* bytes = std::get_if<std::string>(&f.value.v)) {
        mix(h, bytes->size());
        for (unsigned char c : *bytes) mix(h, c);
      }
    }
  return h;
}

uint64_t AlertGrouper::key(const Alert& alert) {
  uint64_t h = kFnvOffset;
  mix(h, alert.pid);
  for (const AlertStack& s : alert.stacks) {
    mix(h, s.frames.size());
    for (const StackFrame& f : s.frames) {
      mix(h, f.addr);
      if (f.python) mix(h, static_cast<uint64_t>(f.line));  // the same function, another line
    }
  }
  return h;
}

void AlertGrouper::summarize(Group& g, std::vector<Alert>& summaries) {
  if (g.repeats == 0 || !g.has_first) return;
  Alert s = std::move(g.first);
  s.count = g.repeats + 1;
  s.time_ns = g.last_wall_ns;
  s.suppressed = 0;  // the limit's count travels on the rule's next regular alert
  summaries.push_back(std::move(s));
}

AlertGrouper::Admission AlertGrouper::admit(uint64_t key, int64_t now_ns, int64_t wall_ns,
                                            std::vector<Alert>& summaries) {
  auto it = groups_.find(key);
  if (it != groups_.end()) {
    Group& g = it->second;
    if (now_ns - g.start_ns < window_ns_) {
      ++g.repeats;
      g.last_wall_ns = wall_ns;
      return {false, false};
    }
    summarize(g, summaries);
    groups_.erase(it);
  }
  if (groups_.size() >= max_groups_) return {true, false};
  Group& g = groups_[key];
  g.start_ns = now_ns;
  g.last_wall_ns = wall_ns;
  return {true, true};
}

void AlertGrouper::opened(uint64_t key, const Alert& first) {
  auto it = groups_.find(key);
  if (it == groups_.end()) return;
  it->second.first = first;
  it->second.has_first = true;
}

void AlertGrouper::take_ended(int64_t now_ns, bool all, std::vector<Alert>& summaries) {
  const size_t before = summaries.size();  // the map's order is arbitrary: report in time order
  for (auto it = groups_.begin(); it != groups_.end();) {
    if (all || now_ns - it->second.start_ns >= window_ns_) {
      summarize(it->second, summaries);
      it = groups_.erase(it);
    } else {
      ++it;
    }
  }
  std::sort(summaries.begin() + static_cast<std::ptrdiff_t>(before), summaries.end(),
            [](const Alert& a, const Alert& b) { return a.time_ns < b.time_ns; });
}

}  // namespace seam::runtime
