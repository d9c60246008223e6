#pragma once
// An output behind its own bounded queue and thread: the reading thread only enqueues, so a
// stdout nobody reads (or a slow disk) stalls that output alone. When its queue is full, its
// records are dropped and counted (seam_output_dropped_total{reason="queue_full"}); every other
// output, the metrics and SIGTERM go on.
#include <chrono>
#include <memory>
#include <thread>

#include "runtime/output/sink.hpp"

namespace seam::runtime {

class QueuedSink : public Sink {
 public:
  explicit QueuedSink(std::shared_ptr<Sink> inner, size_t capacity = 8192,
                      std::chrono::milliseconds drain = std::chrono::milliseconds(2000));
  // Writes what is queued for at most `drain`; a writer still stuck then (a stalled pipe) is
  // left behind rather than waited for.
  ~QueuedSink() override;
  QueuedSink(const QueuedSink&) = delete;
  QueuedSink& operator=(const QueuedSink&) = delete;

  void write(const Alert& alert) override;
  void write_notice(const Notice& notice) override;
  void flush() override;  // asks the worker to flush; does not wait
  void counters(std::vector<metrics::OutputCounter>& out) const override;
  std::string name() const override { return name_; }
  void reopen() override;
  bool ended() const override;
  bool queues_itself() const override { return true; }

  uint64_t dropped() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
  std::string name_;
  std::chrono::milliseconds drain_;
  std::thread worker_;
};

}  // namespace seam::runtime
