#pragma once
// The user-space half of metrics during `seam run`: samples the kernel's metric maps once a
// second, fires windowed rules (at most once per window per series), and serves Prometheus
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
  // Serves /metrics and /healthz; an error (port taken) is returned, and metrics still run.
  std::optional<std::string> listen(const std::string& address);
  uint16_t port() const { return server_.port(); }
  // Once a second: sample, then emit an alert for every windowed rule whose condition holds.
  void tick(int64_t now_ns, const std::function<void(uint32_t rule_id, Alert&)>& emit);
  // Samples now and renders every metric for the terminal (metric_summary.hpp); "" without any.
  std::string summary(int64_t now_ns);
  // What /metrics reports about seam itself; copied under a lock for the server's thread.
  void set_self(metrics::SelfStats self);

 private:
  std::unique_ptr<plan::Plan> plan_;
  std::unique_ptr<metrics::MetricsEngine> engine_;
  std::mutex engine_mutex_;  // the server's thread reads engine_ while set_plan() may replace it
  metrics::HttpServer server_;
  std::mutex self_mutex_;
  metrics::SelfStats self_;
  std::map<std::string, int64_t> last_fired_;  // rule id + labels -> when
  Alert alert_;
};

}  // namespace seam::runtime
