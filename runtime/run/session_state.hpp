#pragma once
// The session of `seam run` inside: the running rule unit (every rule file in one object), the
// services it uses (UnitServices) and what it shares with seam's own programs. session.cpp starts,
// runs and stops it; session_reload.cpp replaces it on reload, through a UnitHandover.
// Single-threaded except for the reload compiler, which runs on a worker and hands its results
// back to run()'s loop.
#include <time.h>

#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/elf/proc_maps_round.hpp"
#include "runtime/identity/cgroup_resolver.hpp"
#include "runtime/output/output_loss_reporter.hpp"
#include "runtime/run/bpf_fill.hpp"
#include "runtime/run/event_reader.hpp"
#include "runtime/run/library_hub.hpp"
#include "runtime/run/live_generation.hpp"
#include "runtime/run/loader_hook.hpp"
#include "runtime/run/metrics_service.hpp"
#include "runtime/run/pods_reporter.hpp"
#include "runtime/run/reloader.hpp"
#include "runtime/run/rule_unit.hpp"
#include "runtime/run/rules_watcher.hpp"
#include "runtime/run/scope_keeper.hpp"
#include "runtime/run/session.hpp"
#include "runtime/run/stack_symbolizer.hpp"
#include "runtime/run/unit_handover.hpp"

namespace seam::runtime::session_detail {

inline int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

class Session {
 public:
  explicit Session(SessionOptions options);
  ~Session();
  SessionResult run();

 private:
  // run()'s phases, in order.
  bool start_unit();
  void announce_ready(int64_t started);
  bool serve_metrics();
  void drop_privileges();
  void loop(int64_t started);
  void stop_unit();
  SessionResult fail();  // stops what started, exit code 1

  struct Timers {
    int64_t next_rescan = 0, next_second = 0, next_report = 0, next_identity_refresh = 0;
  };
  void scan_processes(int64_t now, Timers& timers);
  bool every_second(int64_t now, Timers& timers);
  std::function<void(uint32_t, Alert&)> user_space_alerts();
  void print_summary();

  void notice(const Notice& n);
  void unit_changed();  // the metrics follow the running unit
  int wait_and_consume(int timeout_ms);
  void on_record(std::span<const uint8_t> bytes);
  void exec_seen(pid_t pid);     // a process in scope has just exec'd
  Result<uint32_t> open_ring();  // the ring's size in bytes
  UnitServices unit_services();
  uint32_t new_tag();  // a tag the running unit does not have (1..0xfffe: all ones is the exec notice)
  RingShare share(const plan::Plan& plan, uint32_t tag, uint32_t generation) const;

  // session_reload.cpp
  UnitHandover<RuleUnit>::Steps handover_steps();
  Result<std::unique_ptr<RuleUnit>> start_next(std::unique_ptr<UnitBuild> build);
  void request_reload(bool asked);
  void apply_reload(UnitCompileResult compiled);
  void reload_done(bool built, bool failed, int64_t applying);
  void reload_failed(const std::string& message, const std::string& diagnostics);
  std::map<std::string, int> reusable_maps(const plan::Plan& next) const;
  void retire(std::unique_ptr<RuleUnit> unit);
  // Stops a unit for good and counts what it delivered and dropped; returns the links its stop
  // detached (those detached early too).
  size_t finish(RuleUnit& unit);
  // Stops the lingering units whose time is up (all of them: at the end of the run).
  void end_lingering(int64_t now, bool all);
  metrics::SelfStats self_stats() const;

  SessionOptions options_;
  std::vector<std::shared_ptr<Sink>> sinks_;
  OutputLossReporter output_losses_;  // every second and at stop: what an output's queue dropped
  StackSymbolizerAdapter symbols_;
  LibraryHub libraries_;
  std::shared_ptr<CgroupResolver> cgroups_;  // alerts' container and pod identity
  std::unique_ptr<ScopeKeeper> scope_;       // before the unit whose object shares its map
  void scope_scanned(const std::vector<std::string>& entered);
  std::unique_ptr<LiveGeneration> live_;  // which unit's object acts; before the units sharing it
  UnitServices services_;                 // what the units use of the run
  // The running unit, and the next one during a reload's hand-over (unit_handover.hpp).
  UnitHandover<RuleUnit> units_;
  // Units a reload replaced that keep their return probes a while (RuleUnit::linger), each with
  // the time it is stopped at; their records still reach them.
  struct Lingering {
    std::unique_ptr<RuleUnit> unit;
    int64_t until_ms = 0;
  };
  std::vector<Lingering> lingering_;
  uint32_t next_tag_ = 1;
  std::unique_ptr<MetricsService> metrics_;
  // Exec'd processes to scan, by when: a multimap, so that a scan due later never holds back
  // one due sooner (an exec storm's +30 ms scans once waited behind the first one's +300 ms).
  std::multimap<int64_t, pid_t> pending_scans_;
  // From loading the unit to the scope's first scan: one /proc pass for all of start.
  std::optional<elf::ProcMapsRound> start_round_;
  std::unique_ptr<LoaderHook> loader_;  // null: this host's loader cannot be hooked (a notice said why)
  // The hook's program loads on a thread of its own beside the start's unit (start_unit).
  std::future<Result<std::unique_ptr<LoaderHook>>> loader_loading_;
  void start_loader_hook();
  int ring_fd_ = -1;                     // the ring every unit writes into
  uint32_t ringbuf_bytes_ = 0;           // its size
  std::unique_ptr<EventReader> reader_;  // ... and its one reader, handing records out by unit tag
  std::unique_ptr<RingbufFill> ring_fill_;
  std::unique_ptr<RulesWatcher> watcher_;
  std::future<UnitCompileResult> compiling_;
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
  double attach_ms_ = 0;  // from start to every probe attached (startup scan included)
  std::unique_ptr<PodsReporter> pods_reporter_;
};

}  // namespace seam::runtime::session_detail
