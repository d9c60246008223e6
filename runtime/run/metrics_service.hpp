#pragma once
// The user-space half of metrics during `seam run`: samples the kernel's metric maps once a
// second, keeps the state of windowed rules per series (an alert when it starts to hold, again
// every repeat interval while it holds, a resolved one when it stops), and serves Prometheus
// text with seam's own health on --listen.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "compiler/plan/plan.hpp"
#include "runtime/metrics/http_server.hpp"
#include "runtime/metrics/metrics_engine.hpp"
#include "runtime/metrics/self_stats.hpp"
#include "runtime/output/alert.hpp"

namespace seam::runtime {

class MetricsService {
 public:
  MetricsService(const plan::Plan& plan, std::function<int(const std::string&)> map_fd);
  ~MetricsService();
  // Rule units changed (reload): serve and sample `plan` (every unit's metrics, rule ids global)
  // from now on. Series restart from the maps' current contents; windows start again.
  void set_plan(const plan::Plan& plan, std::function<int(const std::string&)> map_fd);
  // At a start: the maps were created empty at or before now_ns, and windows count from then.
  void count_from_empty_maps(int64_t now_ns);
  // Identity labels (`by container`, `by pod`) are served through `namer`, for this plan and the next.
  void set_identity_namer(metrics::IdentityNamer namer);
  // Serves /metrics and /healthz; an error (port taken) is returned, and metrics still run.
  Result<void> listen(const std::string& address);
  uint16_t port() const { return server_.port(); }
  // Once a second: sample, then emit for every windowed rule and series: a firing alert when its
  // condition starts to hold and every repeat interval while it does, a resolved one when it stops.
  void tick(int64_t now_ns, const std::function<void(uint32_t rule_id, Alert&)>& emit);
  // Samples now and renders every metric for the terminal (metric_summary.hpp); "" without any.
  std::string summary(int64_t now_ns);
  // How often a state that still holds is sent again (default 1 min, as Prometheus re-sends to
  // Alertmanager; well under Alertmanager's 5 min resolve timeout).
  void set_repeat_interval(int64_t ns) { repeat_ns_ = ns; }
  // What /metrics reports about seam itself; copied under a lock for the server's thread.
  void set_self(metrics::SelfStats self);

 private:
  std::unique_ptr<plan::Plan> plan_;
  std::unique_ptr<metrics::MetricsEngine> engine_;
  std::mutex engine_mutex_;  // the server's thread reads engine_ while set_plan() may replace it
  metrics::IdentityNamer namer_;
  metrics::HttpServer server_;
  std::mutex self_mutex_;
  metrics::SelfStats self_;
  struct WindowState {
    uint32_t rule_id = 0;
    metrics::Labels labels;
    double value = 0;  // at the last evaluation
    plan::FieldUnit unit = plan::FieldUnit::None;
    int64_t started_wall_ns = 0;  // when it started to hold (wall clock)
    int64_t sent_ns = 0;          // last sent (the session's monotonic clock)
  };
  std::map<std::string, WindowState> active_;  // rule id + labels -> the state that holds
  int64_t repeat_ns_ = 60'000'000'000;
  Alert alert_;
};

}  // namespace seam::runtime
