#pragma once
// Gets alerts to a webhook without ever blocking the caller. enqueue() copies the alert into a
// bounded in-memory queue and returns; one delivery thread batches the queue (up to batch_max
// alerts or batch_wait), POSTs each batch with a timeout, and retries failures with exponential
// backoff and jitter. A batch that keeps failing goes to the on-disk spool, and while the
// endpoint stays down the queue is moved there too, batch by batch; the spool is replayed, oldest
// first, before anything newer is sent. Order is kept: no alert is delivered before an earlier
// one. What cannot be kept is counted per reason and reported through the notice callback.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "runtime/output/alert.hpp"
#include "runtime/output/webhook_options.hpp"
#include "runtime/output/webhook_spool.hpp"

namespace seam::runtime {

// Counters for metrics (seam's own health). Alerts, not batches, unless named so.
struct DeliveryStats {
  uint64_t accepted = 0;   // queued by enqueue()
  uint64_t delivered = 0;  // in batches the endpoint answered 2xx
  uint64_t batches_delivered = 0;
  uint64_t retries = 0;             // failed POSTs that were tried again (batches)
  uint64_t spooled = 0;             // written to the spool
  uint64_t queue_depth = 0;         // now
  uint64_t spool_bytes = 0;         // now
  uint64_t spool_batches = 0;       // now
  uint64_t dropped_queue_full = 0;  // the queue was full (and the spool could not take it in time)
  uint64_t dropped_spool_full = 0;  // the endpoint was down and the spool was full (or unwritable)
  uint64_t dropped_rejected = 0;    // the endpoint answered 4xx (not 429): retrying would not help
  uint64_t dropped_at_exit = 0;     // still queued at exit with no spool to keep them
  uint64_t dropped_spool_lost = 0;  // in spool files that could not be read back (deleted by hand)
  uint64_t dropped() const {
    return dropped_queue_full + dropped_spool_full + dropped_rejected + dropped_at_exit + dropped_spool_lost;
  }
};

using NoticeCallback = std::function<void(const Notice&)>;  // called from the delivery thread
using BodyMaker = std::function<std::string(std::span<const Alert>)>;

class WebhookDelivery {
 public:
  // Opens the spool (if options.spool_dir is set) and starts the thread. A spool that cannot
  // be opened is an error.
  static Result<std::unique_ptr<WebhookDelivery>> start(WebhookOptions options, BodyMaker make_body,
                                                        NoticeCallback on_notice);
  ~WebhookDelivery();  // finish(options.drain_timeout)

  // Never blocks on the network: copies `alert` into the queue, or counts it as dropped.
  void enqueue(const Alert& alert);
  // Sends what is queued now instead of waiting for the batch to fill. Returns at once.
  void send_now();
  // Waits up to `timeout` for the queue to be delivered, then spools what is left (or counts it
  // as dropped without a spool) and stops the thread. Idempotent.
  void finish(std::chrono::milliseconds timeout);

  DeliveryStats stats() const;

 private:
  struct Batch {
    std::string body;
    uint64_t alerts = 0;
    bool spooled = false;  // it is the spool's front file
    int attempts = 0;
  };

  WebhookDelivery(WebhookOptions options, BodyMaker make_body, NoticeCallback on_notice,
                  std::optional<WebhookSpool> spool);
  void run();
  std::optional<Batch> next_batch();
  Batch take_batch(std::unique_lock<std::mutex>& lock);  // up to batch_max from the queue
  void to_spool(Batch& batch);
  void pop_spool_front();
  void update_spool_counters();
  void wait_backoff(std::chrono::steady_clock::time_point until, bool spill);
  void keep_leftovers(std::optional<Batch>& current);
  void report_drops();
  void notice(plan::Severity severity, std::string kind, std::string message, uint64_t count = 0);
  std::chrono::milliseconds next_backoff();
  bool past_drain_deadline() const;

  const WebhookOptions options_;
  const std::string shown_url_;  // for messages
  BodyMaker make_body_;
  NoticeCallback on_notice_;
  std::optional<WebhookSpool> spool_;  // delivery thread only

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Alert> queue_;
  bool send_now_ = false;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point drain_deadline_{};

  struct Counters {
    std::atomic<uint64_t> accepted{0}, delivered{0}, batches_delivered{0}, retries{0}, spooled{0};
    std::atomic<uint64_t> spool_bytes{0}, spool_batches{0};
    std::atomic<uint64_t> queue_full{0}, spool_full{0}, rejected{0}, at_exit{0}, spool_lost{0};
  } counters_;
  uint64_t reported_queue_full_ = 0, reported_spool_full_ = 0,
           reported_spool_lost_ = 0;  // delivery thread only
  int consecutive_failures_ = 0;      // delivery thread only
  uint64_t jitter_state_;

  std::thread thread_;
  bool finished_ = false;  // guarded by finish_mu_
  std::mutex finish_mu_;
};

}  // namespace seam::runtime
