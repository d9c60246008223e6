#pragma once
// The user-space half of `metric` declarations: reads every metric map of the plan, keeps
// timestamped snapshots as long as the windowed rules need them, evaluates those rules, and
// writes everything (with seam's own health) in the Prometheus text format.
//
// Threads: sample(), evaluate() and prometheus_text() may be called from different threads (the
// session's loop and the HTTP server); series() returns a reference that stays valid only until
// the next sample(), so call it from the thread that samples.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/metrics/identity_labels.hpp"
#include "runtime/metrics/map_reader.hpp"
#include "runtime/metrics/self_stats.hpp"
#include "runtime/metrics/series.hpp"
#include "runtime/metrics/snapshot_history.hpp"

namespace seam::runtime::metrics {

class PrometheusWriter;

class MetricsEngine {
 public:
  // Reads the maps through libbpf; map_fd gives a loaded map's fd by name.
  MetricsEngine(const plan::Plan& plan, std::function<int(const std::string& map_name)> map_fd);
  // Reads the maps through `reader` (tests feed snapshots made by hand).
  MetricsEngine(const plan::Plan& plan, std::unique_ptr<MetricMapReader> reader);

  // Serves identity labels (`by container`, `by pod`) through `namer` from the next sample on.
  void set_identity_namer(IdentityNamer namer) {
    std::lock_guard lock(mutex_);
    identity_namer_ = std::move(namer);
  }

  // Reads every metric map now and keeps a snapshot taken at now_ns (a monotonic clock). A map
  // that cannot be read keeps its previous series and counts a read error.
  void sample(int64_t now_ns);

  // The maps were created empty at or before now_ns (a start, not a reload, where kept maps hold
  // counts): windows count from that empty state, so what happened before the first sample is
  // in them too.
  void count_from_empty_maps(int64_t now_ns);

  // The latest series of a metric, overflow series last (empty for an unknown metric).
  const std::vector<Series>& series(const std::string& metric) const;

  struct WindowResult {
    uint32_t rule_id = 0;
    double value = 0;  // in `unit` (base units: ns, bytes); per second for rate
    plan::FieldUnit unit = plan::FieldUnit::None;
    Labels labels;
  };
  // Every plan::Window, per series of its metric: the function over the change between the newest
  // snapshot and the newest one taken at least window_ns before now_ns (the oldest kept while
  // none is that old yet). Returns those whose comparison holds. A metric not sampled within its
  // window, or with a single snapshot, is not evaluated.
  std::vector<WindowResult> evaluate(int64_t now_ns);

  // Prometheus text format 0.0.4: every metric, the overflow counts, map fill, and `self`.
  std::string prometheus_text(const SelfStats& self) const;

  uint64_t read_errors() const;
  std::string last_error() const;

 private:
  struct MetricState {
    plan::Metric metric;
    uint64_t max_entries = 0;
    SnapshotHistory history;
    std::vector<Series> latest;
  };

  void write_metric(PrometheusWriter& out, const MetricState& state) const;
  void write_self(PrometheusWriter& out, const SelfStats& self) const;

  std::vector<plan::Window> windows_;
  std::map<std::string, std::map<int64_t, std::string>> enums_;  // for labels served by name
  std::vector<MetricState> metrics_;
  IdentityNamer identity_namer_;
  std::unique_ptr<MetricMapReader> reader_;
  uint64_t read_errors_ = 0;
  std::string last_error_;
  mutable std::mutex mutex_;
};

}  // namespace seam::runtime::metrics
