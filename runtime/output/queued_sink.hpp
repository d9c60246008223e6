#pragma once
// An output behind its own bounded queue and thread: the reading thread only enqueues, so a
// stdout nobody reads (or a slow disk) stalls that output alone. When its queue is full, its
// records are dropped and counted (seam_output_dropped_total{reason="queue_full"}, told as an
// `output-drops` notice by the session); every other output, the metrics and SIGTERM go on.
//
// The queue hands records over in batches: the reading thread fills one buffer while the
// output's thread writes the other, and they swap when a batch is full (kBatch records), at
// flush() (the pipeline calls it per ring batch and when idle) or for a notice. A record costs
// the reading thread a copy into a kept slot (its strings reuse their capacity) and no wakeup
// of its own: one per record made the JSON file's pipeline three times as costly in CPU and
// dropped records at 0.5M/s (docs/BENCHMARK.md, stop 20). A full queue waits for room a little
// (at most 100 ms at once, a tenth of the time overall) before it drops: a burst stays in the ring.
#include <chrono>
#include <memory>
#include <thread>

#include "runtime/output/sink.hpp"

namespace seam::runtime {

class QueuedSink : public Sink {
 public:
  static constexpr size_t kBatch = 256;  // records a full batch hands over without a flush()
  // Room past `capacity` that only notices may take: the one telling that this queue dropped
  // alerts is not dropped with them (unless the output is stalled for good).
  static constexpr size_t kNoticeReserve = 64;

  explicit QueuedSink(std::shared_ptr<Sink> inner, size_t capacity = 8192,
                      std::chrono::milliseconds drain = std::chrono::milliseconds(2000));
  // Writes what is queued for at most `drain`; a writer still stuck then (a stalled pipe) is
  // left behind rather than waited for.
  ~QueuedSink() override;
  QueuedSink(const QueuedSink&) = delete;
  QueuedSink& operator=(const QueuedSink&) = delete;

  void write(const Alert& alert) override;
  void write_notice(const Notice& notice) override;  // handed over at once
  void flush() override;  // hands over what is queued and asks the worker to flush; does not wait
  void counters(std::vector<metrics::OutputCounter>& out) const override;
  std::string name() const override { return name_; }
  void reopen() override;
  bool ended() const override;
  bool queues_itself() const override { return true; }
  bool writes_alerts() const override { return alerts_; }

  uint64_t dropped() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
  std::string name_;
  bool alerts_ = true;  // the inner sink writes alerts: a notices-only one is not sent them
  std::chrono::milliseconds drain_;
  std::thread worker_;
};

}  // namespace seam::runtime
