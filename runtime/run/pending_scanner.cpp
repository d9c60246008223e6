#include "runtime/run/pending_scanner.hpp"

#include <bpf/bpf.h>
#include <time.h>

#include <cstring>
#include <vector>

#include "runtime/run/user_space_alert.hpp"

namespace seam::runtime {

PendingScanner::PendingScanner(const plan::Plan& plan, const std::function<int(const std::string&)>& map_fd) {
  for (const plan::Rule& r : plan.rules) {
    if (r.pending_ns <= 0 || r.pending_map.empty()) continue;
    int fd = map_fd(r.pending_map);
    uint32_t value_size = 16;
    for (const plan::Map& m : plan.maps)
      if (m.name == r.pending_map) value_size = m.value_size;
    if (fd >= 0) rules_.push_back({&r, fd, value_size});
  }
}

void PendingScanner::scan(const std::function<void(uint32_t, Alert&)>& emit) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t now = static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  for (const Watched& w : rules_) {
    std::vector<uint8_t> value(w.value_size);
    uint32_t key = 0, next = 0;
    const void* prev = nullptr;
    std::set<std::tuple<uint32_t, uint32_t, uint64_t>> live;
    while (bpf_map_get_next_key(w.fd, prev, &next) == 0) {
      key = next;
      prev = &key;
      if (bpf_map_lookup_elem(w.fd, &key, value.data()) != 0) continue;
      uint64_t start = 0;
      std::memcpy(&start, value.data(), sizeof start);
      if (start == 0 || now < start || now - start < static_cast<uint64_t>(w.rule->pending_ns)) continue;
      auto id = std::make_tuple(w.rule->id, key, start);
      live.insert(id);
      if (!reported_.insert(id).second) continue;
      auto [pid, comm] = task_identity(key);
      make_user_space_alert(*w.rule, pid, key, comm,
                            {{"duration", static_cast<double>(now - start), plan::FieldUnit::Ns}}, {},
                            alert_);
      emit(w.rule->id, alert_);
    }
    // Forget spans that have ended, so the memory of what was reported stays bounded.
    for (auto it = reported_.begin(); it != reported_.end();)
      it = (std::get<0>(*it) == w.rule->id && !live.count(*it)) ? reported_.erase(it) : std::next(it);
  }
}

PendingScanner::ReportedByName PendingScanner::reported_by_name() const {
  ReportedByName out;
  for (const Watched& w : rules_)
    for (const auto& [rule, key, start] : reported_)
      if (rule == w.rule->id) out.emplace(w.rule->name, key, start);
  return out;
}

void PendingScanner::already_reported(const ReportedByName& spans) {
  for (const Watched& w : rules_)
    for (const auto& [name, key, start] : spans)
      if (name == w.rule->name) reported_.emplace(w.rule->id, key, start);
}

}  // namespace seam::runtime
