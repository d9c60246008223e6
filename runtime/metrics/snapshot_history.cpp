#include "runtime/metrics/snapshot_history.hpp"

namespace seam::runtime::metrics {

void SnapshotHistory::add(Snapshot snapshot) {
  // The current newest becomes an inner snapshot: keep it only if it is far enough from the one
  // before it.
  size_t n = snapshots_.size();
  if (n >= 2 && snapshots_[n - 1].time_ns - snapshots_[n - 2].time_ns < spacing_ns_) snapshots_.pop_back();
  int64_t now = snapshot.time_ns;
  snapshots_.push_back(std::move(snapshot));
  // Drop what is older than the newest snapshot that is at least keep_ns old.
  while (snapshots_.size() >= 2 && snapshots_[1].time_ns <= now - keep_ns_) snapshots_.pop_front();
}

const Snapshot* SnapshotHistory::baseline(int64_t time_ns) const {
  if (snapshots_.size() < 2) return nullptr;
  for (size_t i = snapshots_.size() - 1; i-- > 0;)
    if (snapshots_[i].time_ns <= time_ns) return &snapshots_[i];
  return &snapshots_.front();
}

}  // namespace seam::runtime::metrics
