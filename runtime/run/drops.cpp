#include "runtime/run/drops.hpp"

namespace seam::runtime {

std::vector<RuleDrops> DropCounters::new_drops(std::string* error) {
  std::vector<uint64_t> now = object_.drop_counts(error);
  std::vector<RuleDrops> fresh;
  last_.resize(now.size(), 0);
  for (size_t id = 0; id < now.size(); ++id) {
    if (now[id] > last_[id]) fresh.push_back({static_cast<uint32_t>(id), now[id] - last_[id]});
    last_[id] = now[id];
  }
  return fresh;
}

uint64_t DropCounters::total(std::string* error) const {
  uint64_t sum = 0;
  for (uint64_t n : object_.drop_counts(error)) sum += n;
  return sum;
}

}  // namespace seam::runtime
