#include "runtime/run/session.hpp"

#include <sys/stat.h>
#include <time.h>
#include <cstring>

#include <chrono>
#include <deque>
#include <map>

#include "runtime/discover/rescanner.hpp"
#include "runtime/identity/cgroup_resolver.hpp"
#include "runtime/load/features.hpp"
#include "runtime/load/loaded_object.hpp"
#include "runtime/output/alert_pipeline.hpp"
#include "runtime/run/event_reader.hpp"
#include "runtime/run/metrics_service.hpp"
#include "runtime/run/pending_scanner.hpp"
#include "runtime/run/probe_attacher.hpp"
#include "runtime/output/plan_enums.hpp"
#include "runtime/run/stack_symbolizer.hpp"

namespace seam::runtime {

namespace {

int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

std::string rule_names(const plan::Plan& plan, const plan::Attachment& a) {
  std::string names;
  for (uint32_t id : a.rules)
    if (id < plan.rules.size()) names += (names.empty() ? "" : ", ") + plan.rules[id].name;
  return names;
}

// Libraries named by pattern are found in running processes, the ld.so cache and standard
// folders; a library named by path is that file. One finder per plan library.
struct LibraryWatch {
  int library = -1;
  std::unique_ptr<discover::Rescanner> rescanner;
};

}  // namespace

SessionResult run_session(SessionOptions options) {
  SessionResult result;
  const plan::Plan& plan = *options.plan;
  int64_t started = now_ms();
  StackSymbolizerAdapter symbols;
  PipelineOptions pipeline_options;
  pipeline_options.symbolizer = symbols.function();
  pipeline_options.enum_namer = plan_enum_namer(plan);
  // Container and pod identity from the cgroup id, resolved once per cgroup (cached).
  auto cgroups = std::make_shared<CgroupResolver>(CgroupResolverOptions{});
  pipeline_options.identify = [cgroups](Alert& a) {
    Identity id = cgroups->resolve(a.cgroup);
    a.cgroup_path = std::move(id.cgroup_path);
    a.container_id = std::move(id.container_id);
    a.pod_uid = std::move(id.pod_uid);
    a.pod_name = std::move(id.pod_name);
    a.pod_namespace = std::move(id.pod_namespace);
  };
  AlertPipeline pipeline(plan, std::move(options.sinks), std::move(pipeline_options));
  auto notice = [&](Notice n) { pipeline.notice(n); };

  const FeatureSet& features = probe_features();
  LoadResult loaded = LoadedObject::load(options.object, plan, features);
  if (!loaded.object) {
    notice(
        Notice{plan::Severity::Error,
               "load-failed",
               "cannot load the BPF program: " + loaded.error + (loaded.log.empty() ? "" : "\n" + loaded.log),
               {},
               0});
    pipeline.finish();
    result.exit_code = 1;
    return result;
  }
  LoadedObject& object = *loaded.object;
  for (const Unavailable& u : object.unavailable()) {
    std::string rules = rule_names(plan, u.attachment);
    Notice n{plan::Severity::Warning,
             "probe-unavailable",
             (rules.empty() ? "" : "rule " + rules + ": ") + plan::to_string(u.attachment.kind) + " " +
                 (u.attachment.category.empty() ? "" : u.attachment.category + ":") + u.attachment.name +
                 (u.attachment.symbols.empty() ? "" : u.attachment.symbols[0]) + " (" + u.attachment.origin +
                 ") is unavailable here: " + u.reason,
             {},
             0};
    if (!u.attachment.rules.empty() && u.attachment.rules[0] < plan.rules.size())
      n.rule = plan.rules[u.attachment.rules[0]].name;
    notice(std::move(n));
  }

  ProbeAttacher attacher(plan, object, notice);
  attacher.attach_kernel_probes();
  // Exec notices let a new process's libraries be found within ~300 ms; without them the
  // periodic rescan still finds them, only later.
  if (!object.is_loaded("seam_exec_notice") ||
      !object.attach_tracepoint("seam_exec_notice", "sched", "sched_process_exec").ok)
    notice(Notice{plan::Severity::Warning,
                  "exec-notices-unavailable",
                  "cannot follow exec (sched:sched_process_exec); new processes are found by rescans every " +
                      std::to_string(options.rescan_ms) + " ms",
                  {},
                  0});

  std::vector<LibraryWatch> watches;
  for (size_t i = 0; i < plan.libraries.size(); ++i) {
    const plan::Library& lib = plan.libraries[i];
    if (!lib.path.empty()) {
      struct stat st {};
      if (stat(lib.path.c_str(), &st) != 0) {
        notice(Notice{
            plan::Severity::Error, "library-missing", "library " + lib.path + " does not exist", {}, 0});
        continue;
      }
      discover::LibraryFile file{lib.path, lib.path, st.st_dev, st.st_ino, {}};
      attacher.attach_library_file(static_cast<int>(i), file);
      continue;
    }
    discover::Scope scope;
    scope.pid = options.pid;
    scope.include_system_paths = !options.pid;
    watches.push_back({static_cast<int>(i), std::make_unique<discover::Rescanner>(lib.patterns, scope)});
  }
  auto attach_found = [&](LibraryWatch& w, const std::vector<discover::LibraryFile>& files) {
    for (const discover::LibraryFile& f : files) {
      for (pid_t pid : f.pids) symbols.remember(pid);
      attacher.attach_library_file(w.library, f);
    }
  };
  for (LibraryWatch& w : watches) attach_found(w, w.rescanner->scan());
  result.attach_ms = static_cast<double>(now_ms() - started);
  notice(Notice{plan::Severity::Info,
                "ready",
                std::to_string(attacher.attached()) + " probes attached for " +
                    std::to_string(plan.rules.size()) + " rules in " +
                    std::to_string(static_cast<int64_t>(result.attach_ms)) + " ms",
                {},
                attacher.attached()});
  pipeline.flush();

  std::vector<uint64_t> reported_drops(plan.rules.size() + 1, 0);
  EventReader reader(object.ringbuf_fd());
  if (!reader.ok()) {
    notice(Notice{
        plan::Severity::Error, "load-failed", "cannot read the ring buffer: " + reader.error(), {}, 0});
    object.detach_all();
    pipeline.finish();
    result.exit_code = 1;
    return result;
  }
  // A new process maps its libraries after exec, so it is scanned a little later, twice.
  std::deque<std::pair<int64_t, pid_t>> pending_scans;
  auto on_record = [&](std::span<const uint8_t> bytes) {
    ++result.records;
    auto id = Decoder::peek_rule_id(bytes);
    if (id && *id == options.exec_notice_rule) {
      if (bytes.size() >= 16) {
        uint32_t pid = 0;
        std::memcpy(&pid, bytes.data() + 16, 4);
        if (!options.pid || *options.pid == static_cast<pid_t>(pid)) {
          pending_scans.push_back({now_ms() + 30, static_cast<pid_t>(pid)});
          pending_scans.push_back({now_ms() + 300, static_cast<pid_t>(pid)});
        }
      }
      return;
    }
    pipeline.on_record(bytes);
  };
  auto report_drops = [&] {
    std::vector<uint64_t> drops = object.drop_counts();
    for (size_t id = 0; id < drops.size() && id < reported_drops.size(); ++id) {
      if (drops[id] <= reported_drops[id]) continue;
      uint64_t fresh = drops[id] - reported_drops[id];
      reported_drops[id] = drops[id];
      result.dropped += fresh;
      std::string rule = id < plan.rules.size() ? plan.rules[id].name : "?";
      notice(Notice{plan::Severity::Warning, "drops",
                    "rule " + rule + ": " + std::to_string(fresh) +
                        " records dropped because the ring buffer was full (" + std::to_string(drops[id]) +
                        " in all)",
                    rule, fresh});
    }
  };

  PendingScanner pending(plan, [&](const std::string& name) { return object.map_fd(name); });
  auto emit_user_space = [&](uint32_t rule_id, Alert& alert) { pipeline.write_alert(rule_id, alert); };
  MetricsService metrics(plan, [&](const std::string& name) { return object.map_fd(name); });
  if (!options.listen.empty()) {
    if (auto error = metrics.listen(options.listen))
      notice(Notice{plan::Severity::Warning,
                    "metrics-unavailable",
                    "cannot serve metrics on " + options.listen + ": " + *error,
                    {},
                    0});
    else
      notice(Notice{
          plan::Severity::Info, "listening", "metrics on http://" + options.listen + "/metrics", {}, 0});
  }
  metrics.tick(now_ms() * 1000000, emit_user_space);  // the empty baseline windows start from
  auto self_stats = [&] {
    metrics::SelfStats self;
    for (const plan::Rule& r : plan.rules) {
      RuleStats s = pipeline.stats(r.id);
      self.rules.push_back({r.name, s.decoded, r.id < reported_drops.size() ? reported_drops[r.id] : 0,
                            s.written, s.suppressed});
    }
    self.probes_attached = attacher.attached();
    self.probes_failed = attacher.failed();
    self.compile_ms = options.compile_ms;
    self.load_ms = result.attach_ms;
    self.ringbuf_bytes = plan.ringbuf_bytes;
    return self;
  };

  int64_t deadline = options.duration_ms > 0 ? started + options.duration_ms : 0;
  int64_t next_rescan = now_ms() + options.rescan_ms, next_drops = now_ms() + 1000;
  while (!(options.stop && options.stop->load()) && !(deadline && now_ms() >= deadline)) {
    reader.poll(on_record, options.poll_ms);
    int64_t now = now_ms();
    while (!pending_scans.empty() && pending_scans.front().first <= now) {
      pid_t pid = pending_scans.front().second;
      pending_scans.pop_front();
      symbols.remember(pid);
      for (LibraryWatch& w : watches) attach_found(w, w.rescanner->scan_pid(pid));
    }
    if (now >= next_rescan) {
      for (LibraryWatch& w : watches) attach_found(w, w.rescanner->scan());
      next_rescan = now + options.rescan_ms;
    }
    if (now >= next_drops) {
      report_drops();
      if (!pending.empty()) pending.scan(emit_user_space);
      metrics.tick(now_ms() * 1000000, emit_user_space);
      metrics.set_self(self_stats());
      next_drops = now + 1000;
    }
    pipeline.flush();
  }
  // Deliver what is already in the ring, then detach every probe at once.
  reader.consume(on_record);
  int64_t detach_start = now_ms();
  DetachStats detached = object.detach_all();
  result.detach_ms = static_cast<double>(now_ms() - detach_start);
  reader.consume(on_record);
  report_drops();
  result.probes_attached = attacher.attached();
  notice(Notice{plan::Severity::Info,
                "stopped",
                "detached " + std::to_string(detached.links) + " probes in " +
                    std::to_string(static_cast<int64_t>(result.detach_ms)) + " ms; " +
                    std::to_string(result.records) + " records, " + std::to_string(result.dropped) +
                    " dropped",
                {},
                0});
  pipeline.finish();
  return result;
}

}  // namespace seam::runtime
