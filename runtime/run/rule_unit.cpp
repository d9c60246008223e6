#include "runtime/run/rule_unit.hpp"

#include <sys/stat.h>

#include <time.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "runtime/discover/scan_round.hpp"
#include "runtime/output/plan_enums.hpp"
#include "runtime/output/shared_sink.hpp"
#include "runtime/python/stack_namer.hpp"

namespace seam::runtime {

namespace {

std::string rule_names(const plan::Plan& plan, const plan::Attachment& a) {
  std::string names;
  for (uint32_t id : a.rules)
    if (id < plan.rules.size()) names += (names.empty() ? "" : ", ") + plan.rules[id].name;
  return names;
}

}  // namespace

Result<std::unique_ptr<RuleUnit>> RuleUnit::start(std::unique_ptr<UnitBuild> build, LoadResult loaded,
                                                  uint32_t tag, const UnitServices& services) {
  std::unique_ptr<RuleUnit> unit(new RuleUnit());
  unit->build_ = std::move(build);
  unit->services_ = &services;
  auto frame_namer = std::make_shared<python::FrameNamer>();
  unit->make_pipeline(frame_namer);
  if (!loaded) {
    unit->stopped_ = true;
    return Error{"cannot load the BPF program: " + loaded.error(), loaded.code()};
  }
  unit->object_ = std::move(*loaded);
  unit->tag_ = tag;
  const plan::Plan& plan = unit->build_->plan;
  unit->map_fill_ = std::make_unique<StateMapFill>(
      plan, [u = unit.get()](const std::string& name) { return u->object_->map_fd(name); });
  // Kernel probes and libraries attach on two threads: their notices take turns.
  NoticeFn notice = [u = unit.get()](const Notice& n) {
    std::lock_guard lock(u->notice_mutex_);
    u->pipeline_->notice(n);
  };
  unit->report_unavailable(notice);
  unit->attacher_ = std::make_unique<ProbeAttacher>(plan, *unit->object_, notice);
  // Each library's first subscription and the GIL readers' watch scan /proc and the system's
  // library folders: one listing of each, and one read of each process's maps, for them all
  // (discover/scan_round.hpp).
  discover::ScanRound round;
  unit->attach(notice);
  unit->start_memory_readers(notice, frame_namer);
  if (!plan.identity_tests.empty()) {
    unit->identity_ = std::make_unique<IdentityKeeper>(
        plan.identity_tests, unit->object_->map_fd(plan.identity_map), services.cgroups);
    unit->rescan_identity();
  }
  unit->pending_ = std::make_unique<PendingScanner>(
      plan, [u = unit.get()](const std::string& name) { return u->object_->map_fd(name); });
  unit->reported_drops_.assign(plan.rules.size() + 1, 0);
  return unit;
}

// The unit's own pipeline, writing to the run's outputs through shared handles.
void RuleUnit::make_pipeline(const std::shared_ptr<python::FrameNamer>& frame_namer) {
  const plan::Plan& plan = build_->plan;
  PipelineOptions options;
  options.symbolizer = services_->symbols->function();
  options.unwinder = services_->symbols->unwinder();
  options.py_namer = python::py_stack_namer(frame_namer);
  options.enum_namer = plan_enum_namer(plan);
  options.identify = services_->identify;
  std::vector<std::unique_ptr<Sink>> sinks;
  for (const auto& s : services_->sinks) sinks.push_back(std::make_unique<SharedSink>(s));
  pipeline_ = std::make_unique<AlertPipeline>(plan, std::move(sinks), std::move(options));
}

// Probes this kernel cannot attach (the loader said so), and rules and metrics left out at
// compile time for a probe this kernel lacks (plan.hpp).
void RuleUnit::report_unavailable(const NoticeFn& notice) const {
  const plan::Plan& plan = build_->plan;
  for (const Unavailable& u : object_->unavailable()) {
    std::string rules = rule_names(plan, u.attachment);
    Notice n{plan::Severity::Warning,
             notice_id(NoticeKind::ProbeUnavailable),
             (rules.empty() ? "" : "rule " + rules + ": ") + plan::to_string(u.attachment.kind) + " " +
                 (u.attachment.category.empty() ? "" : u.attachment.category + ":") + u.attachment.name +
                 (u.attachment.symbols.empty() ? "" : u.attachment.symbols[0]) + " (" + u.attachment.origin +
                 ") is unavailable here: " + u.reason,
             {},
             0};
    if (!u.attachment.rules.empty() && u.attachment.rules[0] < plan.rules.size())
      n.rule = plan.rules[u.attachment.rules[0]].name;
    notice(n);
  }
  for (const plan::UnavailableRule& u : plan.unavailable_rules)
    notice(Notice{plan::Severity::Warning, notice_id(NoticeKind::ProbeUnavailable),
                  std::string(u.metric ? "metric " : "rule ") + u.name + " (" + u.origin +
                      ") is disabled: " + u.reason + "; the file's other rules run",
                  u.metric ? std::nullopt : std::optional<std::string>(u.name), 0});
}

// Every probe: kernel probes, the exec notice and the scope's programs on a thread of their own,
// beside the libraries' uprobes (found in /proc through the hub).
void RuleUnit::attach(const NoticeFn& notice) {
  const plan::Plan& plan = build_->plan;
  LoadedObject& object = *object_;
  // Kernel probes attach on a thread of their own, beside library discovery and the uprobes: the
  // first program on a tracepoint can wait out an RCU grace period in the kernel (when the
  // tracepoint was in use a moment ago: 35-75 ms on a busy host), which then overlaps the /proc
  // scan instead of adding to it. Joined before the memory readers and so before `ready`. (A
  // process that execs after the scan read /proc and before the exec probe attached is found by
  // the next rescan, 500 ms later, instead of its exec notice.)
  std::jthread kernel_probes([this, &object, &plan, notice] {
    attacher_->attach_kernel_probes();
    // seam's own sched programs: raw tracepoints where lowering made them so (the plan says).
    auto attach_sched = [&object, &plan](const char* program, const char* event) {
      return plan.raw_sched_programs ? object.attach_raw_tracepoint(program, event)
                                     : object.attach_tracepoint(program, "sched", event);
    };
    exec_attached_ =
        object.is_loaded("seam_exec_notice") && attach_sched("seam_exec_notice", "sched_process_exec").ok();
    // A scoped object's children-follow and exit programs (bpf-templates/scope_follow.c.tmpl).
    for (const auto& [program, event] : {std::pair{"seam_scope_fork", "sched_process_fork"},
                                         std::pair{"seam_scope_exit", "sched_process_exit"}})
      if (object.is_loaded(program) && !attach_sched(program, event).ok())
        notice(Notice{plan::Severity::Warning,
                      notice_id(NoticeKind::ScopeFollowUnavailable),
                      std::string("cannot attach ") + program + " (sched:" + event +
                          "): children of processes in scope are found by rescans only",
                      {},
                      0});
  });

  for (size_t i = 0; i < plan.libraries.size(); ++i) {
    const plan::Library& lib = plan.libraries[i];
    int library = static_cast<int>(i);
    if (!lib.path.empty()) {
      struct stat st {};
      if (stat(lib.path.c_str(), &st) != 0) {
        notice(Notice{plan::Severity::Error,
                      notice_id(NoticeKind::LibraryMissing),
                      "library " + lib.path + " does not exist",
                      {},
                      0});
        continue;
      }
      discover::LibraryFile file{lib.path, lib.path, st.st_dev, st.st_ino, {}};
      attacher_->attach_library_file(library, file);
      continue;
    }
    subscriptions_.push_back(
        services_->libraries->subscribe(lib.patterns, [this, library](const discover::LibraryFile& f) {
          for (pid_t pid : f.pids) services_->symbols->remember(pid);
          attacher_->attach_library_file(library, f);
        }));
  }
  kernel_probes.join();
}

// States read from the memory of processes that map the reader's library (the GIL's holder).
void RuleUnit::start_memory_readers(const NoticeFn& notice,
                                    const std::shared_ptr<python::FrameNamer>& frame_namer) {
  const plan::Plan& plan = build_->plan;
  for (const plan::MemoryReader& reader : plan.memory_readers) {
    if (reader.library < 0 || static_cast<size_t>(reader.library) >= plan.libraries.size()) continue;
    auto gil = std::make_shared<python::GilReader>(reader, object_->map_fd(reader.map), notice, frame_namer);
    memory_readers_.push_back(gil);
    subscriptions_.push_back(services_->libraries->watch_processes(
        plan.libraries[static_cast<size_t>(reader.library)].patterns,
        [gil](pid_t pid, const std::vector<discover::LibraryFile>& files) { gil->on_process(pid, files); }));
  }
}

RuleUnit::~RuleUnit() {
  stop();
}

void RuleUnit::on_record(std::span<const uint8_t> bytes) {
  ++records_;  // exec notices never get here: the session takes them from the shared ring
  pipeline_->on_record(bytes);
}

void RuleUnit::report_drops() {
  const plan::Plan& plan = build_->plan;
  Result<std::vector<uint64_t>> counts = object_->drop_counts();
  if (!counts) return;  // read again at the next look
  const std::vector<uint64_t>& drops = *counts;
  for (size_t id = 0; id < drops.size() && id < reported_drops_.size(); ++id) {
    if (drops[id] <= reported_drops_[id]) continue;
    uint64_t fresh = drops[id] - reported_drops_[id];
    reported_drops_[id] = drops[id];
    dropped_ += fresh;
    std::string rule = id < plan.rules.size() ? plan.rules[id].name : "?";
    pipeline_->notice(Notice{plan::Severity::Warning, notice_id(NoticeKind::Drops),
                             "rule " + rule + ": " + std::to_string(fresh) +
                                 " records dropped because the ring buffer was full (" +
                                 std::to_string(drops[id]) + " in all)",
                             rule, fresh});
  }
}

void RuleUnit::every_second() {
  report_drops();
  if (!pending_->empty())
    pending_->scan([this](uint32_t rule_id, Alert& alert) { pipeline_->write_alert(rule_id, alert); });
}

void RuleUnit::rescan_identity() {
  if (!identity_) return;
  std::string why = identity_->refresh();
  if (!why.empty())
    pipeline_->notice(Notice{plan::Severity::Warning,
                             notice_id(NoticeKind::IdentityUnavailable),
                             build_->path + ": container and pod tests: " + why,
                             {},
                             0});
}

size_t RuleUnit::detach_probes() {
  if (stopped_) return 0;
  size_t links = object_->detach_all().links;
  detached_early_ += links;
  return links;
}

DetachStats RuleUnit::unfollow_and_detach(bool keep_entry_bound) {
  for (int id : subscriptions_) services_->libraries->unsubscribe(id);  // no new library's probes
  subscriptions_.clear();
  // Deliver what is already in the ring, then detach the probes at once.
  if (services_->drain) services_->drain();
  return object_->detach_all(keep_entry_bound);
}

bool RuleUnit::linger() {
  if (stopped_ || !object_->has_entry_bound_links()) return false;
  unfollow_and_detach(true);
  return true;
}

DetachStats RuleUnit::stop() {
  if (stopped_) return {};
  stopped_ = true;
  DetachStats detached = unfollow_and_detach(false);
  detached.links += detached_early_;  // then what came since:
  if (services_->drain) services_->drain();
  report_drops();
  pipeline_->finish();
  return detached;
}

namespace {
int64_t monotonic_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}
}  // namespace

void RuleUnit::add_stats(metrics::SelfStats& self) const {
  for (const plan::Rule& r : build_->plan.rules) {
    RuleStats s = pipeline_->stats(r.id);
    ProbeAttacher::RuleProbes probes = attacher_->of_rule(r.id);
    uint64_t unavailable = 0;
    for (const Unavailable& u : object_->unavailable())
      unavailable += std::count(u.attachment.rules.begin(), u.attachment.rules.end(), r.id);
    self.rules.push_back({r.name, s.decoded, r.id < reported_drops_.size() ? reported_drops_[r.id] : 0,
                          s.written, s.suppressed, probes.attached, probes.failed, unavailable});
  }
  self.probes_attached += attacher_->attached();
  self.probes_failed += attacher_->failed();
  self.probes_unavailable += object_->unavailable().size();
  self.library_files_attached += attacher_->library_files();
  // Maps are named with the unit's path ("rules/s_read_95beb6f"): during a reload both units have one.
  std::string stem = std::filesystem::path(build_->path).stem().string();
  for (metrics::MapFill m : map_fill_->get(monotonic_ms())) {
    m.map = stem + "/" + m.map;
    self.maps.push_back(std::move(m));
  }
}

}  // namespace seam::runtime
