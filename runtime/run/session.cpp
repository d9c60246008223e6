#include "runtime/run/session.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "runtime/elf/proc_maps_round.hpp"
#include "runtime/identity/cgroup_resolver.hpp"
#include "runtime/identity/identity_field.hpp"
#include "runtime/load/features.hpp"
#include "runtime/output/queued_sink.hpp"
#include "runtime/run/loader_record.hpp"
#include "runtime/run/parallel_for.hpp"
#include "runtime/run/pods_reporter.hpp"
#include "runtime/run/session_state.hpp"
#include "runtime/safety/capabilities.hpp"

namespace seam::runtime::session_detail {

namespace {

// How often the cgroup tree is walked ahead of alerts (one opendir per cgroup), so that the
// cgroups made since are known even if they are gone by the time their alerts are resolved.
constexpr int64_t kIdentityRefreshMs = 5000;

uint64_t count_open_fds() {
  uint64_t n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.') ++n;
    closedir(d);
    if (n > 0) --n;  // the directory's own descriptor
  }
  return n;
}

}  // namespace

Session::Session(SessionOptions options)
    : options_(std::move(options)), libraries_(options_.pid), reloader_(options_.rule_paths, {}) {
  // Each output behind its own queue and thread (webhooks have theirs): a stalled one drops and
  // counts its own records while the others, the metrics and SIGTERM go on.
  for (auto& s : options_.sinks) {
    std::shared_ptr<Sink> sink(std::move(s));
    if (!sink->queues_itself()) sink = std::make_shared<QueuedSink>(std::move(sink));
    sinks_.push_back(std::move(sink));
  }
  options_.sinks.clear();
  context_.sinks = sinks_;
  context_.symbols = &symbols_;
  // Container and pod identity from the cgroup id, resolved once per cgroup (cached).
  CgroupResolverOptions identity_options;
  identity_options.pods = options_.pods;
  pods_reporter_ = std::make_unique<PodsReporter>(options_.pods, options_.pods_shown_url);
  cgroups_ = std::make_shared<CgroupResolver>(std::move(identity_options));
  context_.cgroups = cgroups_;
  context_.identify = [cgroups = cgroups_](Alert& a) {
    Identity id = cgroups->resolve(a.cgroup);
    a.cgroup_path = std::move(id.cgroup_path);
    a.container_id = std::move(id.container_id);
    a.container_name = std::move(id.container_name);
    a.pod_uid = std::move(id.pod_uid);
    a.pod_name = std::move(id.pod_name);
    a.pod_namespace = std::move(id.pod_namespace);
  };
  context_.libraries = &libraries_;
  // A new process maps its libraries after exec, so it is scanned a little later, twice (once
  // however many units saw the exec).
  context_.on_exec = [this](pid_t pid) {
    if (options_.pid && *options_.pid != pid) return;
    for (const auto& [at, p] : pending_scans_)
      if (p == pid) return;
    pending_scans_.emplace(now_ms() + 30, pid);
    pending_scans_.emplace(now_ms() + 300, pid);
  };
}

Session::~Session() {
  if (compiling_.valid()) compiling_.wait();
  units_.clear();  // before the reader they drain into
  reader_.reset();
  if (ring_fd_ >= 0) close(ring_fd_);
}

// One ring buffer for every unit (--ringbuf-size in all, whatever the number of rule files): the
// objects reuse its fd at load, and each record's rule id carries the unit's tag.
Result<uint32_t> Session::open_ring() {
  uint32_t bytes = options_.ringbuf_bytes;
  // Lowering grows a unit's ring to hold its largest records (stack copies): never below that.
  for (const auto& unit : options_.units) bytes = std::max(bytes, unit->plan.ringbuf_bytes);
  ring_fd_ = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "seam_events", 0, 0, bytes, nullptr);
  if (ring_fd_ < 0)
    return Error{"cannot create the ring buffer (" + std::to_string(bytes) +
                 " bytes): " + std::strerror(errno)};
  reader_ = std::make_unique<EventReader>(ring_fd_);
  if (!reader_->ok()) return Error{"cannot read the ring buffer: " + reader_->error()};
  ring_fill_ = std::make_unique<RingbufFill>(ring_fd_);
  result_.ringbuf_bytes = bytes;
  context_.ring_fd = ring_fd_;
  context_.drain = [this] { reader_->consume([this](std::span<const uint8_t> b) { on_record(b); }); };
  return bytes;
}

void Session::on_record(std::span<const uint8_t> bytes) {
  namespace header = plan::record_header;
  if (bytes.size() < header::kRuleId.end()) return;  // no rule id: no unit to hand it to
  const auto raw = plan::read_header<uint32_t>(bytes, header::kRuleId);
  std::optional<pid_t> pid;  // the header's tgid
  if (bytes.size() >= header::kPid.end())
    pid = static_cast<pid_t>(plan::read_header<uint32_t>(bytes, header::kPid));
  if (raw == kLoaderNoticeRuleId) {
    if (std::optional<pid_t> loaded = loader_ ? loader_->on_record(bytes) : std::nullopt; loaded && scope_)
      scope_scanned(scope_->scan_pid(*loaded));
    return;
  }
  if (raw == plan::kExecNoticeRuleId) {
    if (pid && context_.on_exec) context_.on_exec(*pid);
    return;
  }
  if (pid) symbols_.remember_once(*pid);
  auto unit = context_.by_tag.find(plan::unit_tag_of(raw));
  if (unit != context_.by_tag.end()) unit->second->on_record(bytes);
  // else: a record of a unit already gone (its ring was drained as it stopped): cannot happen
  // unless the kernel delivered it after detach, and then there is no plan to decode it with.
}

// Each process entering the scope is named once (a workload is a few processes, not the host's
// churn); a cgroup selector whose directory went away is named once, and the rest runs on.
void Session::scope_scanned(const std::vector<std::string>& entered) {
  for (const std::string& who : entered)
    notice(Notice{plan::Severity::Info, notice_id(NoticeKind::ScopeEntered), who + " is in scope", {}, 0});
  for (const std::string& cgroup : scope_->vanished_cgroups())
    notice(
        Notice{plan::Severity::Warning,
               notice_id(NoticeKind::ScopeCgroupGone),
               "cgroup " + cgroup + " no longer exists: rules scoped to it see no process; the others run on",
               {},
               0});
}

// The dynamic loader's hook (loader_hook.hpp), once the units have subscribed their patterns:
// without it, new processes' libraries are found by exec notices and rescans only.
void Session::start_loader_hook() {
  Result<std::unique_ptr<LoaderHook>> hook =
      options_.loader_hook
          ? LoaderHook::start(ring_fd_)
          : Result<std::unique_ptr<LoaderHook>>(Error{"a bundle run builds no loader hook (no clang)"});
  if (!hook) {
    notice(Notice{plan::Severity::Warning,
                  notice_id(NoticeKind::LoaderHookUnavailable),
                  hook.error() + "; libraries are found by scans at exec and every " +
                      std::to_string(options_.rescan_ms) + " ms, which miss short-lived processes",
                  {},
                  0});
    return;
  }
  loader_ = std::move(hook.value());
  loader_->follow(libraries_, [this](const std::string& why) {
    notice(Notice{plan::Severity::Warning, notice_id(NoticeKind::LoaderHookUnavailable), why, {}, 0});
  });
}

void Session::notice(const Notice& n) {
  for (auto& s : sinks_) s->write_notice(n);
}

// After units start or stop: the metrics' merged plan.
void Session::units_changed() {
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
    // In the merged plan a metric's map goes by the metric's name, which is unique across files.
    merged.enums.insert(p.enums.begin(), p.enums.end());  // for metric labels served by name
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
  if (!metrics_) {
    metrics_ = std::make_unique<MetricsService>(merged, map_fd);
    metrics_->set_identity_namer([cgroups = context_.cgroups](const std::string& label, uint64_t cgroup) {
      return cgroups ? identity_field(cgroups->resolve(cgroup), label) : std::string();
    });
  } else
    metrics_->set_plan(merged, map_fd);
  metrics_->set_repeat_interval(options_.alert_repeat_ms * 1000000);
}

// Delivers records as they come for up to timeout_ms, returning early once some were delivered.
// Programs submit without wakeups (event_reader.hpp), so every ring is consumed every 10 ms.
int Session::wait_and_consume(int timeout_ms) {
  return reader_->poll([this](std::span<const uint8_t> b) { on_record(b); }, timeout_ms);
}

metrics::SelfStats Session::self_stats() const {
  metrics::SelfStats self;
  for (const auto& [path, unit] : units_) unit->add_stats(self);
  for (const auto& sink : sinks_) sink->counters(self.outputs);  // shared: once, not per unit
  self.ringbuf_bytes = result_.ringbuf_bytes;
  if (scope_)
    self.maps.push_back(metrics::MapFill{"seam_scope", scope_->size(), ScopeKeeper::kMaxProcesses, {}});
  self.processes_tracked = libraries_.processes();
  if (ring_fill_) self.ringbuf_fill = ring_fill_->ratio();
  self.compile_ms = options_.compile_ms;
  self.load_ms = attach_ms_;
  self.reload_errors = reload_errors_;
  self.reloads = reloads_;
  self.last_reload_s = last_reload_s_;
  self.open_fds = count_open_fds();
  rlimit nofile{};
  if (getrlimit(RLIMIT_NOFILE, &nofile) == 0) self.max_fds = nofile.rlim_cur;
  self.symbolizer_processes = symbols_.remembered();
  return self;
}

SessionResult Session::run() {
  int64_t started = now_ms();
  if (!start_units()) return fail();
  announce_ready(started);
  if (!serve_metrics()) return fail();
  drop_privileges();
  metrics_->tick(now_ms() * 1000000, user_space_alerts());  // the empty baseline windows start from
  loop(started);
  if (compiling_.valid()) compiling_.wait();  // a reload in flight is dropped
  if (options_.summary_at_exit || options_.report_ms > 0) {
    for (auto& [path, unit] : units_) unit->flush();
    print_summary();
  }
  stop_units();
  return result_;
}

SessionResult Session::fail() {
  for (auto& [p, u] : units_) u->stop();
  for (auto& s : sinks_) s->flush();
  result_.exit_code = 1;
  return result_;
}

// The ring, the scope map, and every unit loaded (in parallel: the verifier is most of a unit's
// start) and attached. False, with a notice, when one cannot start: the run stops.
bool Session::start_units() {
  if (Result<uint32_t> ring = open_ring(); !ring) {
    notice(Notice{plan::Severity::Error, notice_id(NoticeKind::LoadFailed), ring.error(), {}, 0});
    return false;
  }
  scope_ = std::make_unique<ScopeKeeper>(options_.cgroup);
  if (!scope_->error().empty()) {
    notice(Notice{plan::Severity::Warning,
                  notice_id(NoticeKind::ScopeUnavailable),
                  scope_->error() + "; every rule runs host-wide",
                  {},
                  0});
    scope_.reset();
  }
  live_ = std::make_unique<LiveGeneration>();
  if (!live_->error().empty()) {
    notice(Notice{plan::Severity::Error, notice_id(NoticeKind::LoadFailed), live_->error(), {}, 0});
    return false;
  }
  context_.scope = scope_.get();
  context_.live = live_.get();
  context_.generation = live_->live();  // the units of the start act from their attach
  std::vector<std::optional<LoadResult>> loaded(options_.units.size());
  std::vector<RingShare> shares;
  for (const auto& build : options_.units) shares.push_back(context_.share(build->plan, context_.next_tag++));
  start_round_.emplace();  // units and scope: one /proc pass, until announce_ready
  parallel_for(options_.units.size(), [&](size_t i) {
    loaded[i] =
        LoadedObject::load(options_.units[i]->object, options_.units[i]->plan, probe_features(), shares[i]);
  });
  for (size_t i = 0; i < options_.units.size(); ++i) {
    std::unique_ptr<UnitBuild>& build = options_.units[i];
    std::string path = build->path;
    unit_name_ = path;
    Result<std::unique_ptr<RuleUnit>> unit =
        RuleUnit::start(std::move(build), context_, &*loaded[i], shares[i].unit_tag);
    if (!unit) {
      notice(Notice{plan::Severity::Error, notice_id(NoticeKind::LoadFailed), unit.error(), {}, 0});
      return false;
    }
    units_[path] = std::move(*unit);
  }
  options_.units.clear();
  return true;
}

// Everything that must hold before `ready`: the processes already running scanned, the cgroups
// known, the rule files watched; then the notice, and -c's command may start.
void Session::announce_ready(int64_t started) {
  bool follows_exec = false;
  size_t probes = 0, rules = 0;
  for (const auto& [path, unit] : units_) {
    follows_exec = follows_exec || unit->follows_exec();
    probes += unit->attached();
    rules += unit->plan().rules.size();
  }
  // Exec notices let a new process's libraries be found within ~300 ms; without them the
  // periodic rescan still finds them, only later.
  if (!follows_exec && !units_.empty())
    notice(Notice{plan::Severity::Warning,
                  notice_id(NoticeKind::ExecNoticesUnavailable),
                  "cannot follow exec (sched:sched_process_exec); new processes are found by rescans every " +
                      std::to_string(options_.rescan_ms) + " ms",
                  {},
                  0});
  start_loader_hook();
  if (scope_) scope_scanned(scope_->scan());  // before `ready`: the processes already running
  start_round_.reset();
  // The cgroups there are now, before any alert: a container that calls and exits at once takes
  // its cgroup with it before its alert is resolved (cgroup_resolver.hpp).
  cgroups_->refresh();
  // Watch before `ready`: an edit made as soon as seam says it is ready must not go unseen.
  if (options_.watch && !options_.rule_paths.empty() && options_.compile_unit) {
    watcher_ = std::make_unique<RulesWatcher>(options_.rule_paths);
    if (!watcher_->error().empty())
      notice(Notice{plan::Severity::Warning,
                    notice_id(NoticeKind::WatchUnavailable),
                    "cannot watch the rule files (" + watcher_->error() + "); reload with SIGHUP",
                    {},
                    0});
  }
  result_.attach_ms = attach_ms_ = static_cast<double>(now_ms() - started);
  notice(Notice{plan::Severity::Info,
                notice_id(NoticeKind::Ready),
                std::to_string(probes) + " probes attached for " + std::to_string(rules) + " rules in " +
                    std::to_string(static_cast<int64_t>(result_.attach_ms)) + " ms",
                {},
                probes});
  for (auto& s : sinks_) s->flush();
  units_changed();
  if (options_.on_ready) options_.on_ready();
}

// Prometheus /metrics: false when --listen was given and cannot be served (the run stops).
bool Session::serve_metrics() {
  if (options_.listen.empty()) return true;
  Result<void> listening = metrics_->listen(options_.listen);
  if (!listening && options_.listen_required) {
    notice(Notice{plan::Severity::Error,
                  notice_id(NoticeKind::MetricsUnavailable),
                  "cannot serve metrics on " + options_.listen + " (--listen): " + listening.error(),
                  {},
                  0});
    return false;
  }
  if (!listening)
    notice(Notice{plan::Severity::Warning,
                  notice_id(NoticeKind::MetricsUnavailable),
                  "cannot serve metrics on " + options_.listen + ": " + listening.error(),
                  {},
                  0});
  else
    notice(Notice{plan::Severity::Info,
                  notice_id(NoticeKind::Listening),
                  "metrics on http://" + options_.listen + "/metrics",
                  {},
                  0});
  return true;
}

void Session::drop_privileges() {
  if (!options_.drop_capabilities || geteuid() != 0) return;
  if (Result<void> dropped = drop_capabilities(); !dropped)
    notice(Notice{plan::Severity::Warning,
                  notice_id(NoticeKind::Privileges),
                  "cannot drop capabilities: " + dropped.error(),
                  {},
                  0});
}

// Windowed rules' alerts, evaluated by the metrics engine, go to the unit of their rule.
std::function<void(uint32_t, Alert&)> Session::user_space_alerts() {
  return [this](uint32_t rule_id, Alert& alert) {
    if (rule_id < metric_rules_.size())
      metric_rules_[rule_id].first->write_alert(metric_rules_[rule_id].second, alert);
  };
}

void Session::print_summary() {
  std::string text = metrics_->summary(now_ms() * 1000000);
  for (auto& s : sinks_) s->flush();
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

// Until a signal, --duration, the traced command's or process's end, or every output's reader
// gone: read the ring, scan new processes, reload, and once a second everything periodic.
void Session::loop(int64_t started) {
  int64_t deadline = options_.duration_ms > 0 ? started + options_.duration_ms : 0;
  Timers timers;
  timers.next_rescan = now_ms() + options_.rescan_ms;
  timers.next_second = now_ms() + 1000;
  timers.next_report = options_.report_ms > 0 ? now_ms() + options_.report_ms : 0;
  timers.next_identity_refresh = now_ms() + kIdentityRefreshMs;
  while (!(options_.stop && options_.stop->load()) && !(deadline && now_ms() >= deadline)) {
    wait_and_consume(options_.poll_ms);
    if (options_.finished && options_.finished()) {
      notice(Notice{
          plan::Severity::Info, notice_id(NoticeKind::TargetExited), "the command exited; stopping", {}, 0});
      break;
    }
    int64_t now = now_ms();
    scan_processes(now, timers);
    bool asked = options_.reload && options_.reload->exchange(false);
    if (asked)  // SIGHUP also reopens file outputs (logrotate's mv, create, signal)
      for (auto& s : sinks_) s->reopen();
    // Every output's reader gone (`seam run | head -1`): nothing left to write to, a clean stop.
    if (std::all_of(sinks_.begin(), sinks_.end(), [](const auto& s) { return s->ended(); }) &&
        !sinks_.empty())
      break;
    bool changed = watcher_ && watcher_->poll(now);
    if ((asked || changed) && options_.compile_unit && !options_.rule_paths.empty()) request_reload(asked);
    if (compiling_.valid() && compiling_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
      apply_reload(compiling_.get());
    if (now >= timers.next_second && !every_second(now, timers)) break;
    for (auto& [path, unit] : units_) unit->flush();
  }
}

// New processes (exec notices, a little later) and, every rescan_ms, every process again.
void Session::scan_processes(int64_t now, Timers& timers) {
  while (!pending_scans_.empty() && pending_scans_.begin()->first <= now) {
    pid_t pid = pending_scans_.begin()->second;
    pending_scans_.erase(pending_scans_.begin());
    symbols_.remember(pid);
    libraries_.scan_pid(pid);
    if (scope_) scope_scanned(scope_->scan_pid(pid));
  }
  if (now < timers.next_rescan) return;
  elf::ProcMapsRound round;  // every rescanner, watch and the scope keeper read each process's maps once
  libraries_.scan();
  if (scope_) scope_scanned(scope_->scan());
  for (auto& [path, unit] : units_) unit->rescan_identity();
  timers.next_rescan = now + options_.rescan_ms;
}

// False when the run should end (--pid's process exited).
bool Session::every_second(int64_t now, Timers& timers) {
  // --pid: like bpftrace -p, the run ends with its process.
  if (options_.pid && ::kill(*options_.pid, 0) != 0 && errno == ESRCH) {
    notice(Notice{plan::Severity::Info,
                  notice_id(NoticeKind::TargetExited),
                  "process " + std::to_string(*options_.pid) + " exited; stopping",
                  {},
                  0});
    return false;
  }
  for (auto& [path, unit] : units_) unit->every_second();
  for (const Notice& lost : output_losses_.take(sinks_)) notice(lost);
  if (std::optional<std::string> lost = loader_ ? loader_->newly_lost() : std::nullopt)
    notice(Notice{plan::Severity::Warning, notice_id(NoticeKind::Drops), *lost, {}, 0});
  symbols_.forget_exited(now, 10000);
  if (now >= timers.next_identity_refresh) {
    cgroups_->refresh();
    timers.next_identity_refresh = now + kIdentityRefreshMs;
  }
  if (timers.next_report && now >= timers.next_report) {
    print_summary();
    timers.next_report = now + options_.report_ms;
  }
  metrics_->tick(now_ms() * 1000000, user_space_alerts());
  metrics_->set_self(self_stats());
  if (auto n = pods_reporter_->check()) notice(*n);
  timers.next_second = now + 1000;
  return true;
}

// Every unit's probes at once (a unit's detach mostly waits in the kernel), then each unit
// drains its records and reports.
void Session::stop_units() {
  int64_t detach_start = now_ms();
  size_t links = 0;
  context_.drain();
  std::vector<RuleUnit*> running;
  for (auto& [path, unit] : units_) running.push_back(unit.get());
  std::vector<std::thread> detaching;
  detaching.reserve(running.size());
  for (RuleUnit* unit : running) detaching.emplace_back([unit] { unit->detach_probes(); });
  for (std::thread& t : detaching) t.join();
  for (auto& [path, unit] : units_) {
    links += unit->stop().links;
    retired_records_ += unit->records();
    retired_dropped_ += unit->dropped();
    result_.probes_attached += unit->attached();
  }
  result_.detach_ms = static_cast<double>(now_ms() - detach_start);
  result_.records = retired_records_;
  result_.dropped = retired_dropped_;
  for (const Notice& lost : output_losses_.take(sinks_)) notice(lost);
  notice(Notice{plan::Severity::Info,
                notice_id(NoticeKind::Stopped),
                "detached " + std::to_string(links) + " probes in " +
                    std::to_string(static_cast<int64_t>(result_.detach_ms)) + " ms; " +
                    std::to_string(result_.records) + " records, " + std::to_string(result_.dropped) +
                    " dropped",
                {},
                0});
  for (auto& s : sinks_) s->flush();
}

}  // namespace seam::runtime::session_detail

namespace seam::runtime {

SessionResult run_session(SessionOptions options) {
  session_detail::Session session(std::move(options));
  return session.run();
}

}  // namespace seam::runtime
