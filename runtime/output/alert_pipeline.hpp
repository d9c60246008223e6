#pragma once
// Records in, alerts out: Decoder → per-rule (or per-process) RateLimiter → AlertBuilder
// (symbolizes, so only for alerts that will be written) → every sink. Counts per rule for the
// runtime's stats.
// Single-threaded: the event reader's thread calls on_record(), flush() and finish().
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "runtime/decode/decoder.hpp"
#include "runtime/output/alert_builder.hpp"
#include "runtime/output/alert_grouper.hpp"
#include "runtime/output/process_rate_limiter.hpp"
#include "runtime/output/rate_limiter.hpp"
#include "runtime/output/sink.hpp"

namespace seam::runtime {

struct PipelineOptions {
  StackSymbolizer symbolizer;  // empty: stacks print as bare addresses
  StackUnwinder unwinder;      // empty: user stacks are the frame-pointer walk only
  PyStackNamer py_namer;       // empty: Python frames are not named (a pystack shows none)
  EnumNamer enum_namer;
  std::function<int64_t()> clock;          // monotonic ns for rate limits; empty: CLOCK_MONOTONIC
  std::optional<int64_t> clock_offset_ns;  // monotonic→realtime; empty: sampled at construction
  // Fills an alert's cgroup path, container and pod from its cgroup id (empty: left blank).
  std::function<void(Alert&)> identify;
};

struct RuleStats {
  uint64_t decoded = 0;
  uint64_t written = 0;
  uint64_t suppressed = 0;
  uint64_t decode_errors = 0;
};

class AlertPipeline {
 public:
  AlertPipeline(const plan::Plan& plan, std::vector<std::unique_ptr<Sink>> sinks,
                PipelineOptions options = {});
  ~AlertPipeline();  // finish()

  // One ring-buffer record. A record that does not decode is counted (and the first error per
  // rule is reported as a "decode-error" notice); it never stops the pipeline.
  void on_record(std::span<const uint8_t> bytes);
  // An alert built elsewhere (windowed rules): rate-limited and written like decoded ones.
  void write_alert(uint32_t rule_id, Alert& alert);
  void notice(const Notice& notice);

  // The reader went idle / finished a batch: report suppressed counts whose window has ended,
  // then flush every sink.
  void flush();
  // Exit: report every suppressed count still pending, then flush. Idempotent.
  void finish();
  // Reports held-back counts as "suppressed" notices: those whose window has ended, or with
  // `all` every pending one. flush() and finish() call it.
  void flush_suppressed(bool all);
  // Writes the summaries of groups (`group within D`) whose window has ended, or with `all` of
  // every open group. flush() and finish() call it.
  void flush_groups(bool all);

  // Zeros for an id the plan does not know.
  RuleStats stats(uint32_t rule_id) const;
  // Records whose rule id is unreadable or not in the plan.
  uint64_t unattributed_decode_errors() const { return unattributed_errors_; }
  // Every sink's own counters, for seam's metrics.
  void output_counters(std::vector<metrics::OutputCounter>& out) const {
    for (const auto& sink : sinks_) sink->counters(out);
  }

 private:
  struct PerRule {
    const plan::Rule* rule;
    ProcessRateLimiter limiter;  // per rule, or per process with `limit ... per process`
    RuleStats stats;
    std::unique_ptr<AlertGrouper> grouper;  // null: the rule does not group
  };
  void write_summaries(PerRule& r);
  PerRule* per_rule(uint32_t rule_id);
  const PerRule* per_rule(uint32_t rule_id) const;
  void count_decode_error(std::span<const uint8_t> bytes, const Error& error);
  void report_suppressed(PerRule& r, uint64_t count, uint32_t pid = 0);
  void report_overflow(PerRule& r);
  void emit(Alert& alert);
  int64_t now() const;

  Decoder decoder_;
  AlertBuilder builder_;
  std::vector<std::unique_ptr<Sink>> sinks_;
  std::function<int64_t()> clock_;
  std::function<void(Alert&)> identify_;
  std::vector<PerRule> rules_;  // in plan.rules order, so a Rule* gives its index
  const plan::Rule* first_rule_ = nullptr;
  uint64_t unattributed_errors_ = 0;
  bool reported_unattributed_ = false;
  bool finished_ = false;
  // Reused for every record so the steady state allocates nothing.
  DecodedRecord record_;
  Alert alert_;
  std::vector<Alert> summaries_;
};

}  // namespace seam::runtime
