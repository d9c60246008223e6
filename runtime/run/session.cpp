#include "runtime/run/session.hpp"

#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <deque>
#include <future>
#include <iostream>
#include <map>
#include <set>

#include "runtime/identity/cgroup_resolver.hpp"
#include "runtime/load/features.hpp"
#include "runtime/run/library_hub.hpp"
#include "runtime/run/metrics_service.hpp"
#include "runtime/run/parallel_for.hpp"
#include "runtime/run/reload_plan.hpp"
#include "runtime/run/rule_unit.hpp"
#include "runtime/run/rules_watcher.hpp"
#include "runtime/run/stack_symbolizer.hpp"

namespace seam::runtime {

namespace {

int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

double unix_now_s() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

using CompileBatch = std::vector<std::pair<std::string, UnitCompileResult>>;

// The running rule units and everything they share. Single-threaded except for the reload
// compiler, which runs on a worker and hands its results back to run()'s loop.
class Session {
 public:
  explicit Session(SessionOptions options);
  ~Session();
  SessionResult run();

 private:
  void notice(const Notice& n);
  std::optional<std::string> conflict(const std::string& path, const plan::Plan& plan) const;
  void units_changed();
  int wait_and_consume(int timeout_ms);
  void request_reload(bool asked);
  void apply_reload(CompileBatch batch);
  void reload_failed(const std::string& path, const std::string& hash, const std::string& message,
                     const std::string& diagnostics);
  void retire(std::unique_ptr<RuleUnit> unit);
  metrics::SelfStats self_stats() const;

  SessionOptions options_;
  SessionResult result_;
  std::vector<std::shared_ptr<Sink>> sinks_;
  StackSymbolizerAdapter symbols_;
  LibraryHub libraries_;
  UnitContext context_;
  std::map<std::string, std::unique_ptr<RuleUnit>> units_;  // by rule file
  std::unique_ptr<MetricsService> metrics_;
  std::vector<std::pair<RuleUnit*, uint32_t>> metric_rules_;  // the metrics plan's rule id -> unit, rule id
  std::deque<std::pair<int64_t, pid_t>> pending_scans_;
  int epoll_fd_ = -1;
  std::unique_ptr<RulesWatcher> watcher_;
  std::future<CompileBatch> compiling_;
  struct Pending {
    bool asked = false;
    size_t unchanged = 0, removed = 0;
    int64_t paused_ms = 0;  // on the reading thread: detaching removed units, starting new ones
  } reload_;
  bool reload_again_ = false, reload_again_asked_ = false;
  std::map<std::string, std::string> failed_;  // path -> hash of text that failed to build
  std::set<std::string> conflicted_;           // failed for a metric name another file has
  uint64_t reload_errors_ = 0, reloads_ = 0;
  std::optional<double> last_reload_s_;
  uint64_t retired_records_ = 0, retired_dropped_ = 0;
  double attach_ms_ = 0;
};

Session::Session(SessionOptions options) : options_(std::move(options)), libraries_(options_.pid) {
  for (auto& s : options_.sinks) sinks_.push_back(std::shared_ptr<Sink>(std::move(s)));
  options_.sinks.clear();
  context_.sinks = sinks_;
  context_.symbols = &symbols_;
  // Container and pod identity from the cgroup id, resolved once per cgroup (cached).
  auto cgroups = std::make_shared<CgroupResolver>(CgroupResolverOptions{});
  context_.identify = [cgroups](Alert& a) {
    Identity id = cgroups->resolve(a.cgroup);
    a.cgroup_path = std::move(id.cgroup_path);
    a.container_id = std::move(id.container_id);
    a.pod_uid = std::move(id.pod_uid);
    a.pod_name = std::move(id.pod_name);
    a.pod_namespace = std::move(id.pod_namespace);
  };
  context_.libraries = &libraries_;
  context_.exec_notice_rule = options_.exec_notice_rule;
  // A new process maps its libraries after exec, so it is scanned a little later, twice (once
  // however many units saw the exec).
  context_.on_exec = [this](pid_t pid) {
    if (options_.pid && *options_.pid != pid) return;
    for (const auto& [at, p] : pending_scans_)
      if (p == pid) return;
    pending_scans_.push_back({now_ms() + 30, pid});
    pending_scans_.push_back({now_ms() + 300, pid});
  };
  if (options_.units.empty() && options_.plan) {
    auto build = std::make_unique<UnitBuild>();
    build->plan = *options_.plan;
    build->object.assign(options_.object.begin(), options_.object.end());
    options_.units.push_back(std::move(build));
  }
}

Session::~Session() {
  if (compiling_.valid()) compiling_.wait();
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

void Session::notice(const Notice& n) {
  for (auto& s : sinks_) s->write_notice(n);
}

// Metric names are global (one Prometheus family each): a file may not declare one another
// running file has.
std::optional<std::string> Session::conflict(const std::string& path, const plan::Plan& plan) const {
  for (const auto& [other_path, unit] : units_) {
    if (other_path == path) continue;
    for (const plan::Metric& m : plan.metrics)
      for (const plan::Metric& o : unit->plan().metrics)
        if (m.name == o.name) return "metric " + m.name + " is also declared in " + other_path;
  }
  return std::nullopt;
}

// After units start or stop: the epoll set over their rings and the metrics' merged plan.
void Session::units_changed() {
  if (epoll_fd_ >= 0) close(epoll_fd_);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  for (const auto& [path, unit] : units_) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, unit->wait_fd(), &ev);
  }
  plan::Plan merged;
  std::map<std::string, int> fds;
  metric_rules_.clear();
  for (const auto& [path, unit] : units_) {
    const plan::Plan& p = unit->plan();
    std::map<uint32_t, uint32_t> global;  // the unit's rule id -> the merged plan's
    for (const plan::Rule& r : p.rules) {
      global[r.id] = static_cast<uint32_t>(merged.rules.size());
      merged.rules.push_back(r);
      merged.rules.back().id = global[r.id];
      metric_rules_.push_back({unit.get(), r.id});
    }
    // Each object names its metric maps metric0, metric1...: in the merged plan they go by the
    // metric's name, which is unique across files.
    for (const plan::Metric& m : p.metrics) {
      merged.metrics.push_back(m);
      merged.metrics.back().map = "metric_" + m.name;
      fds[merged.metrics.back().map] = unit->map_fd(m.map);
      for (const plan::Map& map : p.maps)
        if (map.name == m.map) {
          merged.maps.push_back(map);
          merged.maps.back().name = merged.metrics.back().map;
        }
    }
    for (plan::Window w : p.windows) {
      w.rule_id = global.count(w.rule_id) ? global[w.rule_id] : 0xffffffffu;
      merged.windows.push_back(w);
    }
  }
  auto map_fd = [fds](const std::string& name) {
    auto it = fds.find(name);
    return it == fds.end() ? -1 : it->second;
  };
  if (!metrics_)
    metrics_ = std::make_unique<MetricsService>(merged, map_fd);
  else
    metrics_->set_plan(merged, map_fd);
}

// Delivers records as they come for up to timeout_ms, returning early once some were delivered.
// Programs submit without wakeups (event_reader.hpp), so every ring is consumed every 10 ms.
int Session::wait_and_consume(int timeout_ms) {
  int64_t deadline = now_ms() + timeout_ms;
  while (true) {
    int total = 0;
    for (auto& [path, unit] : units_) total += std::max(unit->consume(), 0);
    int64_t left = deadline - now_ms();
    if (total > 0 || left <= 0 || (options_.stop && options_.stop->load())) return total;
    epoll_event events[8];
    epoll_wait(epoll_fd_, events, 8,
               static_cast<int>(std::min<int64_t>(left, EventReader::kConsumeIntervalMs)));
  }
}

void Session::request_reload(bool asked) {
  if (compiling_.valid()) {  // once this one is applied
    reload_again_ = true;
    reload_again_asked_ = reload_again_asked_ || asked;
    return;
  }
  std::map<std::string, std::string> running;
  for (const auto& [path, unit] : units_) running[path] = unit->build().hash;
  std::map<std::string, std::string> on_disk = hash_rule_files(options_.rule_paths);
  ReloadPlan plan = plan_reload(running, failed_, on_disk);
  for (const std::string& path : plan.unchanged)
    if (running.count(path) && running[path] == on_disk[path]) failed_.erase(path);  // back to what runs
  for (const std::string& path : plan.remove) failed_.erase(path);
  std::erase_if(failed_, [&](const auto& entry) { return !on_disk.count(entry.first); });
  reload_ = {asked, plan.unchanged.size(), plan.remove.size()};
  int64_t removing = now_ms();
  for (const std::string& path : plan.remove) {
    auto it = units_.find(path);
    std::unique_ptr<RuleUnit> gone = std::move(it->second);
    units_.erase(it);
    units_changed();
    retire(std::move(gone));
  }
  reload_.paused_ms = now_ms() - removing;
  if (plan.compile.empty()) return apply_reload({});
  // Compile on a worker: the loop keeps reading every ring meanwhile.
  compiling_ = std::async(std::launch::async, [compile = options_.compile_unit, files = plan.compile] {
    CompileBatch batch;
    for (const std::string& file : files)
      batch.emplace_back(
          file, compile ? compile(file) : UnitCompileResult{nullptr, "", "", file + ": cannot compile"});
    return batch;
  });
}

void Session::reload_failed(const std::string& path, const std::string& hash, const std::string& message,
                            const std::string& diagnostics) {
  ++reload_errors_;
  failed_[path] = hash;
  std::cerr << "seam run: reload of " << path << " failed; its previous version keeps running\n";
  if (!diagnostics.empty()) std::cerr << diagnostics;
  if (!message.empty() && diagnostics.find(message) == std::string::npos) std::cerr << message << "\n";
  notice(Notice{plan::Severity::Error,
                "reload-failed",
                message + (units_.count(path) ? " (the previous version keeps running)" : ""),
                {},
                1});
}

void Session::retire(std::unique_ptr<RuleUnit> unit) {
  unit->stop();
  retired_records_ += unit->records();
  retired_dropped_ += unit->dropped();
}

// The new unit of a file starts (attached) before the old one stops: for a moment both fire,
// and no call goes unseen.
void Session::apply_reload(CompileBatch batch) {
  int64_t applying = now_ms();
  size_t compiled = 0, failed = 0;
  std::vector<std::unique_ptr<RuleUnit>> replaced;
  for (auto& [path, compiled_unit] : batch) {
    if (!compiled_unit.build) {
      ++failed;
      reload_failed(path, compiled_unit.hash, compiled_unit.error, compiled_unit.diagnostics);
      continue;
    }
    if (!compiled_unit.diagnostics.empty()) std::cerr << compiled_unit.diagnostics;  // warnings
    std::string hash = compiled_unit.build->hash;
    if (auto clash = conflict(path, compiled_unit.build->plan)) {
      ++failed;
      reload_failed(path, hash, path + ": " + *clash, "");
      conflicted_.insert(path);
      continue;
    }
    std::string error;
    std::unique_ptr<RuleUnit> unit = RuleUnit::start(std::move(compiled_unit.build), context_, &error);
    if (!unit) {
      ++failed;
      reload_failed(path, hash, path + ": " + error, "");
      continue;
    }
    ++compiled;
    failed_.erase(path);
    auto& slot = units_[path];
    if (slot) replaced.push_back(std::move(slot));
    slot = std::move(unit);
  }
  if (compiled > 0) units_changed();
  for (auto& old : replaced) retire(std::move(old));
  if (compiled > 0 || reload_.removed > 0) {
    ++reloads_;
    last_reload_s_ = unix_now_s();
    // A file refused for a name another file declared may load now that the others changed.
    for (const std::string& path : conflicted_)
      if (failed_.erase(path)) reload_again_ = true;
    conflicted_.clear();
  }
  if (reload_.asked || compiled > 0 || failed > 0 || reload_.removed > 0)
    notice(Notice{plan::Severity::Info,
                  "reloaded",
                  "reload: " + std::to_string(compiled) + " compiled, " + std::to_string(failed) +
                      " failed, " + std::to_string(reload_.unchanged) + " unchanged, " +
                      std::to_string(reload_.removed) + " removed (reading paused " +
                      std::to_string(reload_.paused_ms + now_ms() - applying) + " ms)",
                  {},
                  compiled});
  for (auto& [path, unit] : units_) unit->flush();
  if (reload_again_) {
    bool asked = reload_again_asked_;
    reload_again_ = reload_again_asked_ = false;
    request_reload(asked);
  }
}

metrics::SelfStats Session::self_stats() const {
  metrics::SelfStats self;
  for (const auto& [path, unit] : units_) unit->add_stats(self);
  self.compile_ms = options_.compile_ms;
  self.load_ms = attach_ms_;
  self.reload_errors = reload_errors_;
  self.reloads = reloads_;
  self.last_reload_s = last_reload_s_;
  return self;
}

SessionResult Session::run() {
  int64_t started = now_ms();
  // Loading (the verifier) is most of a unit's start and independent per object: in parallel.
  std::vector<LoadResult> loaded(options_.units.size());
  parallel_for(options_.units.size(), [&](size_t i) {
    loaded[i] = LoadedObject::load(options_.units[i]->object, options_.units[i]->plan, probe_features());
  });
  for (size_t i = 0; i < options_.units.size(); ++i) {
    std::unique_ptr<UnitBuild>& build = options_.units[i];
    std::string path = build->path;
    std::optional<std::string> clash = conflict(path, build->plan);
    std::string error = clash ? path + ": " + *clash : "";
    std::unique_ptr<RuleUnit> unit =
        clash ? nullptr : RuleUnit::start(std::move(build), context_, &error, &loaded[i]);
    if (!unit) {
      notice(Notice{plan::Severity::Error, "load-failed", error, {}, 0});
      for (auto& [p, u] : units_) u->stop();
      for (auto& s : sinks_) s->flush();
      result_.exit_code = 1;
      return result_;
    }
    units_[path] = std::move(unit);
  }
  options_.units.clear();
  bool follows_exec = false;
  size_t probes = 0, rules = 0;
  for (const auto& [path, unit] : units_) {
    follows_exec = follows_exec || unit->follows_exec();
    probes += unit->attached();
    rules += unit->plan().rules.size();
  }
  // Exec notices let a new process's libraries be found within ~300 ms; without them the
  // periodic rescan still finds them, only later.
  if (!follows_exec)
    notice(Notice{plan::Severity::Warning,
                  "exec-notices-unavailable",
                  "cannot follow exec (sched:sched_process_exec); new processes are found by rescans every " +
                      std::to_string(options_.rescan_ms) + " ms",
                  {},
                  0});
  result_.attach_ms = attach_ms_ = static_cast<double>(now_ms() - started);
  notice(Notice{plan::Severity::Info,
                "ready",
                std::to_string(probes) + " probes attached for " + std::to_string(rules) + " rules in " +
                    std::to_string(static_cast<int64_t>(result_.attach_ms)) + " ms",
                {},
                probes});
  for (auto& s : sinks_) s->flush();
  units_changed();

  auto emit_user_space = [&](uint32_t rule_id, Alert& alert) {
    if (rule_id < metric_rules_.size())
      metric_rules_[rule_id].first->write_alert(metric_rules_[rule_id].second, alert);
  };
  if (!options_.listen.empty()) {
    if (auto error = metrics_->listen(options_.listen))
      notice(Notice{plan::Severity::Warning,
                    "metrics-unavailable",
                    "cannot serve metrics on " + options_.listen + ": " + *error,
                    {},
                    0});
    else
      notice(Notice{
          plan::Severity::Info, "listening", "metrics on http://" + options_.listen + "/metrics", {}, 0});
  }
  metrics_->tick(now_ms() * 1000000, emit_user_space);  // the empty baseline windows start from
  if (options_.watch && !options_.rule_paths.empty() && options_.compile_unit) {
    watcher_ = std::make_unique<RulesWatcher>(options_.rule_paths);
    if (!watcher_->error().empty())
      notice(Notice{plan::Severity::Warning,
                    "watch-unavailable",
                    "cannot watch the rule files (" + watcher_->error() + "); reload with SIGHUP",
                    {},
                    0});
  }

  int64_t deadline = options_.duration_ms > 0 ? started + options_.duration_ms : 0;
  int64_t next_rescan = now_ms() + options_.rescan_ms, next_second = now_ms() + 1000;
  while (!(options_.stop && options_.stop->load()) && !(deadline && now_ms() >= deadline)) {
    wait_and_consume(options_.poll_ms);
    int64_t now = now_ms();
    while (!pending_scans_.empty() && pending_scans_.front().first <= now) {
      pid_t pid = pending_scans_.front().second;
      pending_scans_.pop_front();
      symbols_.remember(pid);
      libraries_.scan_pid(pid);
    }
    if (now >= next_rescan) {
      libraries_.scan();
      next_rescan = now + options_.rescan_ms;
    }
    bool asked = options_.reload && options_.reload->exchange(false);
    bool changed = watcher_ && watcher_->poll(now);
    if ((asked || changed) && options_.compile_unit && !options_.rule_paths.empty()) request_reload(asked);
    if (compiling_.valid() && compiling_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
      apply_reload(compiling_.get());
    if (now >= next_second) {
      for (auto& [path, unit] : units_) unit->every_second();
      metrics_->tick(now_ms() * 1000000, emit_user_space);
      metrics_->set_self(self_stats());
      next_second = now + 1000;
    }
    for (auto& [path, unit] : units_) unit->flush();
  }
  if (compiling_.valid()) compiling_.wait();  // a reload in flight is dropped
  int64_t detach_start = now_ms();
  size_t links = 0;
  for (auto& [path, unit] : units_) {
    links += unit->stop().links;
    retired_records_ += unit->records();
    retired_dropped_ += unit->dropped();
    result_.probes_attached += unit->attached();
  }
  result_.detach_ms = static_cast<double>(now_ms() - detach_start);
  result_.records = retired_records_;
  result_.dropped = retired_dropped_;
  notice(Notice{plan::Severity::Info,
                "stopped",
                "detached " + std::to_string(links) + " probes in " +
                    std::to_string(static_cast<int64_t>(result_.detach_ms)) + " ms; " +
                    std::to_string(result_.records) + " records, " + std::to_string(result_.dropped) +
                    " dropped",
                {},
                0});
  for (auto& s : sinks_) s->flush();
  return result_;
}

}  // namespace

SessionResult run_session(SessionOptions options) {
  Session session(std::move(options));
  return session.run();
}

}  // namespace seam::runtime
