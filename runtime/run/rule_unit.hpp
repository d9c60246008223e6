#pragma once
// The run's rule files running (all of them, in one BPF object, or a bundle's): the object loaded,
// its probes attached (uprobes through the shared LibraryHub), its records (taken from the ring by
// the session, by the unit tag in their rule id) fed to its own AlertPipeline, which writes to the
// session's outputs. A reload starts the next unit before it stops this one; for that moment both are
// attached, and the live generation (live_generation.hpp) says which one acts.
#include <sys/types.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compiler/diag/result.hpp"

#include "runtime/load/loaded_object.hpp"
#include "runtime/metrics/self_stats.hpp"
#include "runtime/output/alert_pipeline.hpp"
#include "runtime/python/gil_reader.hpp"
#include "runtime/run/bpf_fill.hpp"
#include "runtime/run/identity_keeper.hpp"
#include "runtime/run/library_hub.hpp"
#include "runtime/run/pending_scanner.hpp"
#include "runtime/run/probe_attacher.hpp"
#include "runtime/run/stack_symbolizer.hpp"
#include "runtime/run/unit_build.hpp"

namespace seam::runtime {

// What a unit uses of the run it is part of: services it calls, passed to it at start and never
// changed by it. The session owns them; they outlive every unit.
struct UnitServices {
  std::vector<std::shared_ptr<Sink>> sinks;  // the run's outputs, each behind its queue
  StackSymbolizerAdapter* symbols = nullptr;
  std::function<void(Alert&)> identify;     // container and pod identity of an alert
  std::shared_ptr<CgroupResolver> cgroups;  // cgroup id -> identity, for identity tests
  LibraryHub* libraries = nullptr;          // library subscriptions and process watches
  // Delivers everything in the shared ring now, each record to the unit of its tag (this one
  // too, while it stops).
  std::function<void()> drain;
};

class RuleUnit {
 public:
  // Attaches every probe of `loaded` (build->object, loaded by the session with the ring share of
  // `tag`); the error says why the object could not be loaded (nothing stays attached then).
  static Result<std::unique_ptr<RuleUnit>> start(std::unique_ptr<UnitBuild> build, LoadResult loaded,
                                                 uint32_t tag, const UnitServices& services);
  ~RuleUnit();  // stop()
  RuleUnit(const RuleUnit&) = delete;
  RuleUnit& operator=(const RuleUnit&) = delete;

  const UnitBuild& build() const { return *build_; }
  const plan::Plan& plan() const { return build_->plan; }
  uint32_t tag() const { return tag_; }  // in the rule id of each of its records
  bool follows_exec() const { return exec_attached_; }
  int map_fd(const std::string& name) const { return object_->map_fd(name); }

  // One of this unit's records from the shared ring.
  void on_record(std::span<const uint8_t> bytes);
  // Once a second: new drops as notices, spans pending past their bound.
  void every_second();
  // A reload: the spans `old` reported as pending are not reported again (their map is kept).
  void take_over_pending(const RuleUnit& old) {
    pending_->already_reported(old.pending_->reported_by_name());
  }
  // Every rescan: the identity map (container and pod tests) for the cgroups there are now.
  void rescan_identity();
  // An alert made in user space for one of this unit's rules (windowed rules).
  void write_alert(uint32_t rule_id, Alert& alert) { pipeline_->write_alert(rule_id, alert); }
  void flush() { pipeline_->flush(); }
  void notice(const Notice& n) { pipeline_->notice(n); }

  // Detaches every probe, delivers what is left in the ring, reports drops and suppressed counts.
  // Idempotent; returns the links detached by the first call.
  DetachStats stop();
  // A reload's replaced unit, after the flip: detaches every probe but the return probes that run
  // only for the calls whose entry they saw (LoadedObject::detach_all), which it keeps, with its
  // pipeline, so that a call that entered under it and returns later is still ended (by its own
  // program: seam_ends). False, with nothing done, when it has none; stop() ends it either way.
  bool linger();
  // Detaches every probe and nothing else: safe on several units at once from several threads
  // (each detach mostly waits in the kernel), before stop() on each. Returns the links detached.
  size_t detach_probes();

  size_t attached() const { return attacher_->attached(); }
  size_t failed() const { return attacher_->failed(); }
  uint64_t records() const { return records_; }
  uint64_t dropped() const { return dropped_; }
  void add_stats(metrics::SelfStats& self) const;

 private:
  RuleUnit() = default;
  // start()'s steps, in order.
  void make_pipeline(const std::shared_ptr<python::FrameNamer>& frame_namer);
  void report_unavailable(const NoticeFn& notice) const;
  void attach(const NoticeFn& notice);
  void start_memory_readers(const NoticeFn& notice, const std::shared_ptr<python::FrameNamer>& frame_namer);
  void report_drops();
  // stop() and linger(): no more library subscriptions, the ring drained, the probes detached
  // (all of them, or all but the entry-bound return probes).
  DetachStats unfollow_and_detach(bool keep_entry_bound);

  std::unique_ptr<UnitBuild> build_;
  const UnitServices* services_ = nullptr;
  std::unique_ptr<AlertPipeline> pipeline_;
  std::unique_ptr<LoadedObject> object_;
  std::unique_ptr<ProbeAttacher> attacher_;
  std::unique_ptr<PendingScanner> pending_;
  std::unique_ptr<IdentityKeeper> identity_;  // null: the file tests no container or pod
  std::vector<std::shared_ptr<python::GilReader>> memory_readers_;  // states read from memory
  mutable std::unique_ptr<StateMapFill> map_fill_;                  // recounts lazily, from add_stats()
  uint32_t tag_ = 0;
  size_t detached_early_ = 0;  // by detach_probes()
  std::vector<int> subscriptions_;
  std::vector<uint64_t> reported_drops_;
  uint64_t records_ = 0, dropped_ = 0;
  bool exec_attached_ = false;
  bool stopped_ = false;
  std::mutex notice_mutex_;  // start(): kernel probes and libraries attach on two threads
};

}  // namespace seam::runtime
