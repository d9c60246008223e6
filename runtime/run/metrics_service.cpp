#include "runtime/run/metrics_service.hpp"

#include "runtime/run/metric_summary.hpp"
#include "runtime/run/user_space_alert.hpp"

namespace seam::runtime {

MetricsService::MetricsService(const plan::Plan& plan, std::function<int(const std::string&)> map_fd)
    : plan_(std::make_unique<plan::Plan>(plan)),
      engine_(std::make_unique<metrics::MetricsEngine>(*plan_, std::move(map_fd))) {}

void MetricsService::set_plan(const plan::Plan& plan, std::function<int(const std::string&)> map_fd) {
  auto fresh_plan = std::make_unique<plan::Plan>(plan);
  auto fresh = std::make_unique<metrics::MetricsEngine>(*fresh_plan, std::move(map_fd));
  std::lock_guard<std::mutex> lock(engine_mutex_);
  engine_ = std::move(fresh);
  plan_ = std::move(fresh_plan);
  last_fired_.clear();
}

MetricsService::~MetricsService() { server_.stop(); }

std::optional<std::string> MetricsService::listen(const std::string& address) {
  return server_.start(address, [this] {
    metrics::SelfStats self;
    {
      std::lock_guard<std::mutex> lock(self_mutex_);
      self = self_;
    }
    std::lock_guard<std::mutex> lock(engine_mutex_);
    return engine_->prometheus_text(self);
  });
}

void MetricsService::set_self(metrics::SelfStats self) {
  std::lock_guard<std::mutex> lock(self_mutex_);
  self_ = std::move(self);
}

std::string MetricsService::summary(int64_t now_ns) {
  std::lock_guard<std::mutex> lock(engine_mutex_);
  if (plan_->metrics.empty()) return "";
  engine_->sample(now_ns);
  std::string out;
  for (const plan::Metric& m : plan_->metrics) out += metric_summary(m, engine_->series(m.name));
  return out;
}

void MetricsService::tick(int64_t now_ns, const std::function<void(uint32_t, Alert&)>& emit) {
  if (plan_->metrics.empty()) return;
  engine_->sample(now_ns);
  for (const metrics::MetricsEngine::WindowResult& w : engine_->evaluate(now_ns)) {
    if (w.rule_id >= plan_->rules.size()) continue;
    const plan::Rule& rule = plan_->rules[w.rule_id];
    int64_t window_ns = 0;
    for (const plan::Window& win : plan_->windows)
      if (win.rule_id == w.rule_id) window_ns = win.window_ns;
    std::string key = std::to_string(w.rule_id);
    for (const auto& [k, v] : w.labels) key += "\x1f" + k + "=" + v;
    auto last = last_fired_.find(key);
    if (last != last_fired_.end() && now_ns - last->second < window_ns) continue;  // once per window
    last_fired_[key] = now_ns;
    make_user_space_alert(rule, 0, 0, {}, {{"value", w.value, w.unit}}, w.labels, alert_);
    emit(w.rule_id, alert_);
  }
}

}  // namespace seam::runtime
