#pragma once
// The session of `seam run` inside: the running rule units (one per rule file) and what they
// share. session.cpp starts, runs and stops it; session_reload.cpp replaces units on reload.
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

#include "runtime/identity/cgroup_resolver.hpp"
#include "runtime/run/bpf_fill.hpp"
#include "runtime/run/event_reader.hpp"
#include "runtime/run/library_hub.hpp"
#include "runtime/run/metrics_service.hpp"
#include "runtime/run/pods_reporter.hpp"
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
  void notice(const Notice& n);
  std::optional<std::string> conflict(const std::string& path, const plan::Plan& plan) const;
  void units_changed();
  int wait_and_consume(int timeout_ms);
  void on_record(std::span<const uint8_t> bytes);
  bool open_ring(std::string* error);
  void request_reload(bool asked);
  void apply_reload(CompileBatch&& batch);  // moves each compiled unit into its RuleUnit
  void reload_failed(const std::string& path, const std::string& hash, const std::string& message,
                     const std::string& diagnostics);
  void retire(std::unique_ptr<RuleUnit> unit);
  metrics::SelfStats self_stats() const;

  SessionOptions options_;
  SessionResult result_;
  std::vector<std::shared_ptr<Sink>> sinks_;
  StackSymbolizerAdapter symbols_;
  LibraryHub libraries_;
  std::unique_ptr<ScopeKeeper> scope_;  // before the units whose objects share its map
  void scope_scanned(const std::vector<std::string>& entered);
  UnitContext context_;
  std::map<std::string, std::unique_ptr<RuleUnit>> units_;  // by rule file
  std::unique_ptr<MetricsService> metrics_;
  std::vector<std::pair<RuleUnit*, uint32_t>> metric_rules_;  // the metrics plan's rule id -> unit, rule id
  std::deque<std::pair<int64_t, pid_t>> pending_scans_;
  int ring_fd_ = -1;                     // the ring every unit writes into
  std::unique_ptr<EventReader> reader_;  // ... and its one reader, handing records out by unit tag
  std::unique_ptr<RingbufFill> ring_fill_;
  uint64_t exec_records_ = 0;
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
  std::unique_ptr<PodsReporter> pods_reporter_;
  std::shared_ptr<CgroupResolver> cgroups_;  // alerts' container and pod identity
};

}  // namespace seam::runtime::session_detail
