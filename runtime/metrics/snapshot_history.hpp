#pragma once
// Timestamped snapshots of one metric, kept as long as its longest window needs them. Between the
// oldest and the newest, snapshots closer than `spacing` to the one kept before them are thinned
// out, so a 1h window sampled every second keeps about 16 × (longest / shortest window) of them;
// a window then spans up to `spacing` more than declared.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace seam::runtime::metrics {

struct SeriesValues {
  uint64_t count = 0;
  uint64_t sum = 0;
  std::vector<uint64_t> buckets;
};

using SeriesMap = std::map<std::string, SeriesValues>;  // by the map's raw key bytes

struct Snapshot {
  int64_t time_ns = 0;
  std::shared_ptr<const SeriesMap> series;
};

class SnapshotHistory {
 public:
  SnapshotHistory(int64_t keep_ns, int64_t spacing_ns) : keep_ns_(keep_ns), spacing_ns_(spacing_ns) {}

  void add(Snapshot snapshot);
  const Snapshot* newest() const { return snapshots_.empty() ? nullptr : &snapshots_.back(); }
  // The newest snapshot taken at or before `time_ns`, never the newest itself; the oldest when
  // none is that old yet; null while there are fewer than two.
  const Snapshot* baseline(int64_t time_ns) const;
  size_t size() const { return snapshots_.size(); }

 private:
  int64_t keep_ns_;
  int64_t spacing_ns_;
  std::deque<Snapshot> snapshots_;
};

}  // namespace seam::runtime::metrics
