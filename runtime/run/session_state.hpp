#pragma once
// The session of `seam run` inside: the running rule unit (every rule file in one object) and
// what it shares with seam's own programs. session.cpp starts, runs and stops it;
// session_reload.cpp replaces the unit on reload.
// Single-threaded except for the reload compiler, which runs on a worker and hands its results
// back to run()'s loop.
#include <time.h>

#include <deque>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/elf/proc_maps_round.hpp"
#include "runtime/identity/cgroup_resolver.hpp"
#include "runtime/output/output_loss_reporter.hpp"
#include "runtime/run/bpf_fill.hpp"
#include "runtime/run/event_reader.hpp"
#include "runtime/run/library_hub.hpp"
#include "runtime/run/loader_hook.hpp"
#include "runtime/run/metrics_service.hpp"
#include "runtime/run/pods_reporter.hpp"
#include "runtime/run/reloader.hpp"
#include "runtime/run/rule_unit.hpp"
#include "runtime/run/rules_watcher.hpp"
#include "runtime/run/session.hpp"
#include "runtime/run/stack_symbolizer.hpp"

namespace seam::runtime::session_detail {

inline int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

using CompileBatch = std::vector<std::pair<std::string, UnitCompileResult>>;

class Session {
 public:
  explicit Session(SessionOptions options);
  ~Session();
  SessionResult run();

 private:
  // run()'s phases, in order.
  bool start_units();
  void announce_ready(int64_t started);
  bool serve_metrics();
  void drop_privileges();
  void loop(int64_t started);
  void stop_units();
  SessionResult fail();  // stops what started, exit code 1

  struct Timers {
    int64_t next_rescan = 0, next_second = 0, next_report = 0, next_identity_refresh = 0;
  };
  void scan_processes(int64_t now, Timers& timers);
  bool every_second(int64_t now, Timers& timers);
  std::function<void(uint32_t, Alert&)> user_space_alerts();
  void print_summary();

  void notice(const Notice& n);
  void units_changed();
  int wait_and_consume(int timeout_ms);
  void on_record(std::span<const uint8_t> bytes);
  Result<uint32_t> open_ring();  // the ring's size in bytes
  void request_reload(bool asked);
  void apply_reload(CompileBatch&& batch);  // moves the compiled unit into its RuleUnit
  void reload_failed(const std::string& path, const std::string& message, const std::string& diagnostics);
  std::map<std::string, int> reusable_maps(const plan::Plan& next) const;
  void retire(std::unique_ptr<RuleUnit> unit);
  metrics::SelfStats self_stats() const;

  SessionOptions options_;
  SessionResult result_;
  std::vector<std::shared_ptr<Sink>> sinks_;
  OutputLossReporter output_losses_;  // every second and at stop: what an output's queue dropped
  StackSymbolizerAdapter symbols_;
  LibraryHub libraries_;
  std::unique_ptr<ScopeKeeper> scope_;  // before the units whose objects share its map
  void scope_scanned(const std::vector<std::string>& entered);
  std::unique_ptr<LiveGeneration> live_;  // which unit's object acts; before the units sharing it
  UnitContext context_;
  std::map<std::string, std::unique_ptr<RuleUnit>> units_;  // by rule file
  std::unique_ptr<MetricsService> metrics_;
  std::vector<std::pair<RuleUnit*, uint32_t>> metric_rules_;  // the metrics plan's rule id -> unit, rule id
  // Exec'd processes to scan, by when: a multimap, so that a scan due later never holds back
  // one due sooner (an exec storm's +30 ms scans once waited behind the first one's +300 ms).
  std::multimap<int64_t, pid_t> pending_scans_;
  // From loading the units to the scope's first scan: one /proc pass for all of start.
  std::optional<elf::ProcMapsRound> start_round_;
  std::unique_ptr<LoaderHook> loader_;  // null: this host's loader cannot be hooked (a notice said why)
  void start_loader_hook();
  int ring_fd_ = -1;                     // the ring every unit writes into
  std::unique_ptr<EventReader> reader_;  // ... and its one reader, handing records out by unit tag
  std::unique_ptr<RingbufFill> ring_fill_;
  std::unique_ptr<RulesWatcher> watcher_;
  std::future<CompileBatch> compiling_;
  struct Pending {
    bool asked = false;
    ReloadDecision decision;  // which files changed
    std::map<std::string, std::string> on_disk;
    int64_t paused_ms = 0;  // on the reading thread: detaching removed units, starting new ones
  } reload_;
  bool reload_again_ = false, reload_again_asked_ = false;
  Reloader reloader_;      // whether a reload builds the unit again, and what a failure leaves running
  std::string unit_name_;  // the unit a reload builds (the run's paths, or the bundle)
  uint64_t reload_errors_ = 0, reloads_ = 0;
  std::optional<double> last_reload_s_;
  uint64_t retired_records_ = 0, retired_dropped_ = 0;
  double attach_ms_ = 0;
  std::unique_ptr<PodsReporter> pods_reporter_;
  std::shared_ptr<CgroupResolver> cgroups_;  // alerts' container and pod identity
};

}  // namespace seam::runtime::session_detail
