#include "runtime/run/session.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>

#include "runtime/discover/scan_round.hpp"
#include "runtime/identity/cgroup_resolver.hpp"
#include "runtime/identity/identity_field.hpp"
#include "runtime/load/features.hpp"
#include "runtime/output/queued_sink.hpp"
#include "runtime/run/loader_record.hpp"
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

// The address as asked for, with the port the server bound: "127.0.0.1:0" names the free port
// the kernel chose, so that a script or test can ask for any port and read back which.
std::string served_address(const std::string& listen, uint16_t port) {
  return listen.substr(0, listen.rfind(':') + 1) + std::to_string(port);
}

}  // namespace

Session::Session(SessionOptions options)
    : options_(std::move(options)),
      libraries_(options_.pid),
      units_(handover_steps()),
      reloader_(options_.rule_paths, {}) {
  // Each output behind its own queue and thread (webhooks have theirs): a stalled one drops and
  // counts its own records while the others, the metrics and SIGTERM go on.
  for (auto& s : options_.sinks) {
    std::shared_ptr<Sink> sink(std::move(s));
    if (!sink->queues_itself()) sink = std::make_shared<QueuedSink>(std::move(sink));
    sinks_.push_back(std::move(sink));
  }
  options_.sinks.clear();
  // Container and pod identity from the cgroup id, resolved once per cgroup (cached).
  CgroupResolverOptions identity_options;
  identity_options.pods = options_.pods;
  pods_reporter_ = std::make_unique<PodsReporter>(options_.pods, options_.pods_shown_url);
  cgroups_ = std::make_shared<CgroupResolver>(std::move(identity_options));
  services_ = unit_services();
}

UnitServices Session::unit_services() {
  UnitServices services;
  services.sinks = sinks_;
  services.symbols = &symbols_;
  services.cgroups = cgroups_;
  services.identify = [cgroups = cgroups_](Alert& a) {
    Identity id = cgroups->resolve(a.cgroup);
    a.cgroup_path = std::move(id.cgroup_path);
    a.container_id = std::move(id.container_id);
    a.container_name = std::move(id.container_name);
    a.pod_uid = std::move(id.pod_uid);
    a.pod_name = std::move(id.pod_name);
    a.pod_namespace = std::move(id.pod_namespace);
  };
  services.libraries = &libraries_;
  services.drain = [this] {
    if (reader_) reader_->consume([this](std::span<const uint8_t> b) { on_record(b); });
  };
  return services;
}

Session::~Session() {
  if (compiling_.valid()) compiling_.wait();
  units_.clear();  // before the reader they drain into
  lingering_.clear();
  reader_.reset();
  if (ring_fd_ >= 0) close(ring_fd_);
}

uint32_t Session::new_tag() {
  const RuleUnit* running = units_.running();
  auto lingers = [this](uint32_t tag) {
    return std::any_of(lingering_.begin(), lingering_.end(),
                       [&](const Lingering& l) { return l.unit->tag() == tag; });
  };
  for (;;) {
    uint32_t tag = next_tag_;
    next_tag_ = next_tag_ >= 0xfffe ? 1 : next_tag_ + 1;
    if ((!running || running->tag() != tag) && !lingers(tag)) return tag;
  }
}

// What an object shares with the run when it loads: the ring, the scope map and the bits its
// plan needs there, the live generation switch and the generation it acts in.
RingShare Session::share(const plan::Plan& plan, uint32_t tag, uint32_t generation) const {
  return RingShare{ring_fd_,
                   tag,
                   scope_ ? scope_->fd() : -1,
                   scope_ ? scope_->any_fd() : -1,
                   scope_ ? scope_->masks_for(plan) : std::vector<uint64_t>{},
                   {},
                   live_ ? live_->fd() : -1,
                   generation};
}

// One ring buffer (--ringbuf-size, whatever the number of rule files), which the next unit of a
// reload shares: the objects reuse its fd at load, and each record's rule id carries the unit's tag.
Result<uint32_t> Session::open_ring() {
  uint32_t bytes = options_.ringbuf_bytes;
  // Lowering grows a unit's ring to hold its largest records (stack copies): never below that.
  if (options_.unit) bytes = std::max(bytes, options_.unit->plan.ringbuf_bytes);
  if (options_.ahead && options_.ahead->ring_fd() >= 0 && options_.ahead->ring_bytes() >= bytes) {
    bytes = options_.ahead->ring_bytes();
    ring_fd_ = options_.ahead->take_ring();
    if (options_.loader_hook) {
      options_.ahead->attach_loaders();  // if the build did not already
      loader_loading_ = options_.ahead->take_hook();
    }
  }
  options_.ahead.reset();  // what was not taken (its hook, its ring) is closed
  if (ring_fd_ < 0) ring_fd_ = create_event_ring(bytes);
  if (ring_fd_ < 0)
    return Error{"cannot create the ring buffer (" + std::to_string(bytes) +
                 " bytes): " + std::strerror(errno)};
  reader_ = std::make_unique<EventReader>(ring_fd_);
  if (!reader_->ok()) return Error{"cannot read the ring buffer: " + reader_->error()};
  ring_fill_ = std::make_unique<RingbufFill>(ring_fd_);
  ringbuf_bytes_ = bytes;
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
    if (pid) exec_seen(*pid);
    return;
  }
  if (pid) symbols_.remember_once(*pid);
  uint32_t tag = plan::unit_tag_of(raw);
  for (RuleUnit* unit : {units_.running(), units_.beside()})
    if (unit && unit->tag() == tag) return unit->on_record(bytes);
  for (Lingering& l : lingering_)
    if (l.unit->tag() == tag) return l.unit->on_record(bytes);
  // else: a record of a unit already gone (its ring was drained as it stopped): cannot happen
  // unless the kernel delivered it after detach, and then there is no plan to decode it with.
}

// A new process maps its libraries after exec, so it is scanned a little later, twice.
void Session::exec_seen(pid_t pid) {
  if (options_.pid && *options_.pid != pid) return;
  for (const auto& [at, p] : pending_scans_)
    if (p == pid) return;
  pending_scans_.emplace(now_ms() + 30, pid);
  pending_scans_.emplace(now_ms() + 300, pid);
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

// The dynamic loader's hook (loader_hook.hpp): without it, new processes' libraries are found by
// exec notices and rescans only. Once per run, from start_unit: loaded by then on the thread it
// began, where it began one.
void Session::start_loader_hook() {
  Result<std::unique_ptr<LoaderHook>> hook =
      loader_loading_.valid() ? loader_loading_.get()
      : options_.loader_hook
          ? LoaderHook::start(ring_fd_, options_.pid)
          : Result<std::unique_ptr<LoaderHook>>(
                Error{"this seam came without a built loader hook, and a bundle run builds none (no clang)"});
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

// After the running unit changed: the metrics follow its plan (rules, windows, and its metrics,
// whose maps go by the metric's name: metric_<name>, as /metrics shows them).
void Session::unit_changed() {
  plan::Plan plan;
  std::map<std::string, int> fds;
  if (const RuleUnit* unit = units_.running()) {
    const plan::Plan& p = unit->plan();
    plan.rules = p.rules;
    plan.enums = p.enums;  // for metric labels served by name
    for (const plan::Metric& m : p.metrics) {
      plan.metrics.push_back(m);
      plan.metrics.back().map = "metric_" + m.name;
      fds[plan.metrics.back().map] = unit->map_fd(m.map);
      for (const plan::Map& map : p.maps)
        if (map.name == m.map) {
          plan.maps.push_back(map);
          plan.maps.back().name = plan.metrics.back().map;
        }
    }
    plan.windows = p.windows;
  }
  auto map_fd = [fds](const std::string& name) {
    auto it = fds.find(name);
    return it == fds.end() ? -1 : it->second;
  };
  if (!metrics_) {
    metrics_ = std::make_unique<MetricsService>(plan, map_fd);
    // The first unit's maps were created empty at its load: a window counts every call since its
    // attach, not only those after the first sample (which a caller may already be making).
    metrics_->count_from_empty_maps(now_ms() * 1000000);
    metrics_->set_identity_namer([cgroups = cgroups_](const std::string& label, uint64_t cgroup) {
      return cgroups ? identity_field(cgroups->resolve(cgroup), label) : std::string();
    });
  } else
    metrics_->set_plan(plan, map_fd);
  metrics_->set_repeat_interval(options_.alert_repeat_ms * 1000000);
}

// Delivers records as they come for up to timeout_ms, returning early once some were delivered.
// Programs submit without wakeups (event_reader.hpp), so every ring is consumed every 10 ms.
int Session::wait_and_consume(int timeout_ms) {
  return reader_->poll([this](std::span<const uint8_t> b) { on_record(b); }, timeout_ms);
}

metrics::SelfStats Session::self_stats() const {
  metrics::SelfStats self;
  if (const RuleUnit* unit = units_.running()) unit->add_stats(self);
  for (const auto& sink : sinks_) sink->counters(self.outputs);
  self.ringbuf_bytes = ringbuf_bytes_;
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
  if (!start_unit()) return fail();
  announce_ready(started);
  if (!serve_metrics()) return fail();
  drop_privileges();
  loop(started);
  if (compiling_.valid()) compiling_.wait();  // a reload in flight is dropped
  if (options_.summary_at_exit || options_.report_ms > 0) {
    if (RuleUnit* unit = units_.running()) unit->flush();
    print_summary();
  }
  stop_unit();
  return SessionResult{};
}

SessionResult Session::fail() {
  if (RuleUnit* unit = units_.running()) unit->stop();
  for (auto& s : sinks_) s->flush();
  return SessionResult{1};
}

// The ring, the scope map, the live generation, and the unit loaded and attached. False, with a
// notice, when one cannot start: the run stops.
bool Session::start_unit() {
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
  start_round_.emplace();  // the unit and the scope: one /proc pass, until announce_ready
  if (!options_.unit) {
    start_loader_hook();
    return true;
  }
  // The loader hook's program loads beside the unit's (the kernel verifies both at once), and its
  // uprobe on seam's own loader attaches there too, unless both began while clang built (the run's
  // StartAhead). Registering a uprobe takes the kernel's dup_mmap_sem for writing, whose first
  // writer after a quiet spell waits out an RCU grace period (rcu_sync_enter, 8-20 ms here);
  // writers within about a grace period after it do not. So that wait passes beside the unit's
  // load (or the build), not before the unit's uprobes, which follow the load at once. The hook's
  // other loaders are attached by follow(), before the unit's uprobes.
  if (options_.loader_hook && !loader_loading_.valid())
    loader_loading_ = LoaderHook::start_async(ring_fd_, options_.pid);
  std::unique_ptr<UnitBuild> build = std::move(options_.unit);
  unit_name_ = build->path;
  uint32_t tag = new_tag();
  // The unit of the start acts from its attach: it is loaded in the live generation.
  LoadResult loaded = LoadedObject::load(build->object, build->plan, probe_features(),
                                         share(build->plan, tag, live_->live()));
  discover::ScanRound round;  // the hook's search for ld.so and the unit's libraries: one listing
  if (loaded) start_loader_hook();
  Result<std::unique_ptr<RuleUnit>> unit =
      RuleUnit::start(std::move(build), std::move(loaded), tag, services_);
  if (!unit) {
    notice(Notice{plan::Severity::Error, notice_id(NoticeKind::LoadFailed), unit.error(), {}, 0});
    return false;
  }
  units_.run(std::move(*unit));
  return true;
}

// Everything that must hold before `ready`: the processes already running scanned, the cgroups
// known, the rule files watched; then the notice, and -c's command may start.
void Session::announce_ready(int64_t started) {
  const RuleUnit* unit = units_.running();
  size_t probes = unit ? unit->attached() : 0, rules = unit ? unit->plan().rules.size() : 0;
  // Exec notices let a new process's libraries be found within ~300 ms; without them the
  // periodic rescan still finds them, only later.
  if (unit && !unit->follows_exec())
    notice(Notice{plan::Severity::Warning,
                  notice_id(NoticeKind::ExecNoticesUnavailable),
                  "cannot follow exec (sched:sched_process_exec); new processes are found by rescans every " +
                      std::to_string(options_.rescan_ms) + " ms",
                  {},
                  0});
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
  attach_ms_ = static_cast<double>(now_ms() - started);
  notice(Notice{plan::Severity::Info,
                notice_id(NoticeKind::Ready),
                std::to_string(probes) + " probes attached for " + std::to_string(rules) + " rules in " +
                    std::to_string(static_cast<int64_t>(attach_ms_)) + " ms",
                {},
                probes});
  for (auto& s : sinks_) s->flush();
  unit_changed();
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
                  "metrics on http://" + served_address(options_.listen, metrics_->port()) + "/metrics",
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
    if (RuleUnit* unit = units_.running(); unit && rule_id < unit->plan().rules.size())
      unit->write_alert(rule_id, alert);
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
    if (RuleUnit* unit = units_.running()) unit->flush();
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
  // Every rescanner, watch and the scope keeper list /proc once and read each process's maps once.
  discover::ScanRound round;
  libraries_.scan();
  if (scope_) scope_scanned(scope_->scan());
  if (RuleUnit* unit = units_.running()) unit->rescan_identity();
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
  if (RuleUnit* unit = units_.running()) unit->every_second();
  end_lingering(now, false);
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

// The unit's probes detached, then its records drained and its drops reported.
void Session::stop_unit() {
  int64_t detach_start = now_ms();
  size_t links = 0;
  services_.drain();
  for (const Lingering& l : lingering_) links += l.unit->detach_probes();
  end_lingering(now_ms(), true);
  if (RuleUnit* unit = units_.running()) {
    unit->detach_probes();
    links += finish(*unit);
  }
  auto detach_ms = static_cast<double>(now_ms() - detach_start);
  for (const Notice& lost : output_losses_.take(sinks_)) notice(lost);
  notice(Notice{plan::Severity::Info,
                notice_id(NoticeKind::Stopped),
                "detached " + std::to_string(links) + " probes in " +
                    std::to_string(static_cast<int64_t>(detach_ms)) + " ms; " +
                    std::to_string(retired_records_) + " records, " + std::to_string(retired_dropped_) +
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
