#include "runtime/run/metrics_service.hpp"

#include <time.h>

#include <cstdlib>

#include "runtime/run/metric_summary.hpp"
#include "runtime/run/user_space_alert.hpp"

namespace seam::runtime {

MetricsService::MetricsService(const plan::Plan& plan, std::function<int(const std::string&)> map_fd)
    : plan_(std::make_unique<plan::Plan>(plan)),
      engine_(std::make_unique<metrics::MetricsEngine>(*plan_, std::move(map_fd))) {}

void MetricsService::set_plan(const plan::Plan& plan, std::function<int(const std::string&)> map_fd) {
  auto fresh_plan = std::make_unique<plan::Plan>(plan);
  auto fresh = std::make_unique<metrics::MetricsEngine>(*fresh_plan, std::move(map_fd));
  fresh->set_identity_namer(namer_);
  std::lock_guard<std::mutex> lock(engine_mutex_);
  engine_ = std::move(fresh);
  plan_ = std::move(fresh_plan);
  active_.clear();
}

void MetricsService::count_from_empty_maps(int64_t now_ns) {
  std::lock_guard<std::mutex> lock(engine_mutex_);
  engine_->count_from_empty_maps(now_ns);
}

void MetricsService::set_identity_namer(metrics::IdentityNamer namer) {
  std::lock_guard<std::mutex> lock(engine_mutex_);
  namer_ = std::move(namer);
  engine_->set_identity_namer(namer_);
}

MetricsService::~MetricsService() {
  server_.stop();
}

Result<void> MetricsService::listen(const std::string& address) {
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

namespace {

bool is_short_container_id(const std::string& value) {
  return value.size() == 12 && value.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The labels that name the series' task or container go to the alert's own fields (pid, comm,
// cgroup: the pipeline finds container and pod from it); the others stay fields of the alert.
void identify_series(const metrics::Labels& labels, Alert& alert, metrics::Labels* rest) {
  alert.has_task = false;
  for (const auto& [name, value] : labels) {
    uint64_t number = std::strtoull(value.c_str(), nullptr, 10);
    if (name == "pid" || name == "tid") {
      (name == "pid" ? alert.pid : alert.tid) = static_cast<uint32_t>(number);
      alert.has_task = true;
    } else if (name == "comm") {
      alert.comm = value;
      alert.has_task = true;
    } else if (name == "cgroup") {
      alert.cgroup = number;
    } else if (name == "container_id") {
      alert.container_id = value;
    } else if (name == "container") {  // served as the container's name where known, else its short id
      (is_short_container_id(value) ? alert.container_id : alert.container_name) = value;
    } else if (name == "pod") {
      alert.pod_name = value;
    } else if (name == "namespace") {
      alert.pod_namespace = value;
    } else {
      rest->emplace_back(name, value);
    }
  }
  // A series by pid only: the process's name from /proc rather than an empty one.
  if (alert.has_task && alert.comm.empty() && alert.pid) alert.comm = task_identity(alert.pid).second;
}

int64_t wall_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

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
  auto send = [&](const WindowState& state, const char* status) {
    const plan::Rule& rule = plan_->rules[state.rule_id];
    metrics::Labels rest;
    alert_ = Alert{};  // nothing of the previous series' alert (its container, pod) carries over
    make_user_space_alert(rule, 0, 0, {}, {{"value", state.value, state.unit}}, state.labels, alert_);
    alert_.fields.erase(alert_.fields.begin() + 1, alert_.fields.end());  // labels: below
    identify_series(state.labels, alert_, &rest);
    for (const auto& [k, text] : rest)
      alert_.fields.push_back(
          AlertField{k, Value{text, plan::FieldUnit::None, plan::FieldType::Str}, {}, text});
    alert_.status = status;
    alert_.starts_ns = state.started_wall_ns;
    emit(state.rule_id, alert_);
  };
  std::map<std::string, WindowState> holding;
  for (const metrics::MetricsEngine::WindowResult& w : engine_->evaluate(now_ns)) {
    if (w.rule_id >= plan_->rules.size()) continue;
    std::string key = std::to_string(w.rule_id);
    for (const auto& [k, v] : w.labels) key += "\x1f" + k + "=" + v;
    WindowState state{w.rule_id, w.labels, w.value, w.unit, wall_ns(), now_ns};
    if (auto active = active_.find(key); active != active_.end()) {
      state.started_wall_ns = active->second.started_wall_ns;
      state.sent_ns = active->second.sent_ns;
      if (now_ns - state.sent_ns >= repeat_ns_) {  // still holds: tell Alertmanager again
        state.sent_ns = now_ns;
        send(state, kFiring);
      }
    } else {
      send(state, kFiring);
    }
    holding.emplace(key, std::move(state));
  }
  for (auto& [key, state] : active_)
    if (!holding.count(key)) send(state, kResolved);
  active_ = std::move(holding);
}

}  // namespace seam::runtime
