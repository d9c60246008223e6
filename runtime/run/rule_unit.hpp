#pragma once
// The run's rule files running (all of them, in one BPF object, or a bundle's): the object loaded,
// its probes attached (uprobes through the shared LibraryHub), its records (taken from the ring,
// by the unit tag in their rule id) fed to its own AlertPipeline, which writes to the session's
// outputs. A reload starts the next unit before it stops this one; for that moment both are
// attached, and the live generation (live_generation.hpp) says which one acts.
#include <sys/types.h>

#include <functional>
#include <map>
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
#include "runtime/run/event_reader.hpp"
#include "runtime/run/identity_keeper.hpp"
#include "runtime/run/library_hub.hpp"
#include "runtime/run/live_generation.hpp"
#include "runtime/run/pending_scanner.hpp"
#include "runtime/run/probe_attacher.hpp"
#include "runtime/run/scope_keeper.hpp"
#include "runtime/run/stack_symbolizer.hpp"
#include "runtime/run/unit_build.hpp"

namespace seam::runtime {

class RuleUnit;

// What every unit of a session shares.
struct UnitContext {
  std::vector<std::shared_ptr<Sink>> sinks;
  StackSymbolizerAdapter* symbols = nullptr;
  std::function<void(Alert&)> identify;
  std::shared_ptr<CgroupResolver> cgroups;  // cgroup id -> identity, for identity tests
  LibraryHub* libraries = nullptr;
  std::function<void(pid_t)> on_exec;  // a process in scope has just exec'd
  // The ring every unit's object writes into, the reader's hand-off of a unit's records (by the
  // tag in their rule id), and a call that delivers everything in the ring now.
  int ring_fd = -1;
  std::map<uint32_t, RuleUnit*> by_tag;
  std::function<void()> drain;
  // The seam_scope map scoped objects share, and the bits each needs (null: none kept).
  ScopeKeeper* scope = nullptr;
  // The run's live generation switch (null: none), and the generation objects loaded now get:
  // the live one at start, the next one while a reload loads its object.
  LiveGeneration* live = nullptr;
  uint32_t generation = 1;
  RingShare share(const plan::Plan& plan, uint32_t tag) const {
    return RingShare{ring_fd,
                     tag,
                     scope ? scope->fd() : -1,
                     scope ? scope->masks_for(plan) : std::vector<uint64_t>{},
                     {},
                     live ? live->fd() : -1,
                     generation};
  }
  uint32_t next_tag = 1;
  // A tag no running unit has (1..0xfffe: all ones in a rule id is the exec notice).
  uint32_t new_tag();
};

class RuleUnit {
 public:
  // Loads the object and attaches every probe; the error says why the object could not be
  // loaded (nothing stays attached then).
  // `loaded`: the object already loaded from build->object (session start loads them in parallel).
  // `tag`: from context.new_tag(), the one `loaded` was loaded with (0: a new one).
  static Result<std::unique_ptr<RuleUnit>> start(std::unique_ptr<UnitBuild> build, UnitContext& context,
                                                 LoadResult* loaded = nullptr, uint32_t tag = 0);
  ~RuleUnit();  // stop()
  RuleUnit(const RuleUnit&) = delete;
  RuleUnit& operator=(const RuleUnit&) = delete;

  const UnitBuild& build() const { return *build_; }
  const plan::Plan& plan() const { return build_->plan; }
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
  void report_drops();

  std::unique_ptr<UnitBuild> build_;
  UnitContext* context_ = nullptr;
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
