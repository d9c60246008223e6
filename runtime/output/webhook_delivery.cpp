#include "runtime/output/webhook_delivery.hpp"

#include <algorithm>

#include "runtime/output/webhook_http.hpp"

namespace seam::runtime {

using Clock = std::chrono::steady_clock;

Result<std::unique_ptr<WebhookDelivery>> WebhookDelivery::start(WebhookOptions options, BodyMaker make_body,
                                                                NoticeCallback on_notice) {
  std::optional<WebhookSpool> spool;
  if (!options.spool_dir.empty()) {
    auto opened = WebhookSpool::open(options.spool_dir, options.spool_max_bytes);
    if (!opened) return Error{opened.error()};
    spool = std::move(*opened);
  }
  return std::unique_ptr<WebhookDelivery>(
      new WebhookDelivery(std::move(options), std::move(make_body), std::move(on_notice), std::move(spool)));
}

WebhookDelivery::WebhookDelivery(WebhookOptions options, BodyMaker make_body, NoticeCallback on_notice,
                                 std::optional<WebhookSpool> spool)
    : options_(std::move(options)),
      shown_url_(shown_webhook(options_)),
      make_body_(std::move(make_body)),
      on_notice_(std::move(on_notice)),
      spool_(std::move(spool)),
      jitter_state_(static_cast<uint64_t>(Clock::now().time_since_epoch().count()) | 1) {
  if (spool_) update_spool_counters();
  if (options_.insecure)
    notice(plan::Severity::Warning, notice_id(NoticeKind::WebhookInsecure),
           "webhook " + shown_url_ + ": TLS certificate verification is off (insecure)");
  if (spool_ && !spool_->empty())
    notice(plan::Severity::Info, notice_id(NoticeKind::WebhookSpool),
           "webhook " + shown_url_ + ": replaying " + std::to_string(spool_->alerts()) +
               " spooled alerts from " + spool_->dir(),
           spool_->alerts());
  thread_ = std::thread([this] { run(); });
}

WebhookDelivery::~WebhookDelivery() {
  finish(options_.drain_timeout);
}

void WebhookDelivery::enqueue(const Alert& alert) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.size() >= options_.queue_max) {
      counters_.queue_full.fetch_add(1, std::memory_order_relaxed);
    } else {
      queue_.push_back(alert);
      counters_.accepted.fetch_add(1, std::memory_order_relaxed);
    }
  }
  cv_.notify_one();
}

void WebhookDelivery::send_now() {
  {
    std::lock_guard lock(mu_);
    send_now_ = true;
  }
  cv_.notify_one();
}

void WebhookDelivery::finish(std::chrono::milliseconds timeout) {
  std::lock_guard finish_lock(finish_mu_);
  if (finished_) return;
  finished_ = true;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    drain_deadline_ = Clock::now() + timeout;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

DeliveryStats WebhookDelivery::stats() const {
  DeliveryStats s;
  auto get = [](const std::atomic<uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  s.accepted = get(counters_.accepted);
  s.delivered = get(counters_.delivered);
  s.batches_delivered = get(counters_.batches_delivered);
  s.retries = get(counters_.retries);
  s.spooled = get(counters_.spooled);
  s.spool_bytes = get(counters_.spool_bytes);
  s.spool_batches = get(counters_.spool_batches);
  s.dropped_queue_full = get(counters_.queue_full);
  s.dropped_spool_full = get(counters_.spool_full);
  s.dropped_rejected = get(counters_.rejected);
  s.dropped_at_exit = get(counters_.at_exit);
  s.dropped_spool_lost = get(counters_.spool_lost);
  std::lock_guard lock(mu_);
  s.queue_depth = queue_.size();
  return s;
}

void WebhookDelivery::notice(plan::Severity severity, std::string kind, std::string message, uint64_t count) {
  if (!on_notice_) return;
  Notice n;
  n.severity = severity;
  n.kind = std::move(kind);
  n.message = std::move(message);
  n.count = count;
  on_notice_(n);
}

bool WebhookDelivery::past_drain_deadline() const {
  std::lock_guard lock(mu_);
  return stopping_ && Clock::now() >= drain_deadline_;
}

WebhookDelivery::Batch WebhookDelivery::take_batch(std::unique_lock<std::mutex>& lock) {
  size_t n = std::min(queue_.size(), options_.batch_max);
  std::vector<Alert> alerts;
  alerts.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    alerts.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  lock.unlock();  // formatting (and identity lookups) must not hold up enqueue()
  Batch batch{make_body_(alerts), n, false, 0};
  lock.lock();
  return batch;
}

// The spool's oldest batch first (it is older than anything queued), else a batch from the queue
// once it is full, batch_wait has passed, send_now() was called, or we are stopping.
std::optional<WebhookDelivery::Batch> WebhookDelivery::next_batch() {
  if (spool_ && !spool_->empty()) {
    auto front = spool_->front();
    update_spool_counters();
    if (front) return Batch{std::move(front->body), front->alerts, true, 0};
  }
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
  if (queue_.empty()) return std::nullopt;  // stopping with nothing left
  auto deadline = Clock::now() + options_.batch_wait;
  cv_.wait_until(lock, deadline,
                 [&] { return stopping_ || send_now_ || queue_.size() >= options_.batch_max; });
  send_now_ = false;
  return take_batch(lock);
}

void WebhookDelivery::run() {
  WebhookPoster poster(options_.url, options_.headers, options_.insecure, options_.timeout);
  std::optional<Batch> current;
  while (true) {
    report_drops();
    if (!current) {
      {
        std::lock_guard lock(mu_);
        // At exit only the queue is drained (behind the spool, if any); the spool stays for the
        // next start.
        if (stopping_ && queue_.empty()) break;
      }
      current = next_batch();
      if (!current) break;
    }
    if (past_drain_deadline()) break;

    PostResult r = poster.post(current->body);
    if (r.outcome == PostOutcome::Delivered) {
      counters_.delivered.fetch_add(current->alerts, std::memory_order_relaxed);
      counters_.batches_delivered.fetch_add(1, std::memory_order_relaxed);
      if (consecutive_failures_ > 0)
        notice(plan::Severity::Info, notice_id(NoticeKind::WebhookUp),
               "webhook " + shown_url_ + ": delivering again after " + std::to_string(consecutive_failures_) +
                   " failed tries");
      consecutive_failures_ = 0;
      if (current->spooled) pop_spool_front();
      current.reset();
      continue;
    }
    if (r.outcome == PostOutcome::Rejected) {
      counters_.rejected.fetch_add(current->alerts, std::memory_order_relaxed);
      notice(plan::Severity::Error, notice_id(NoticeKind::Drops),
             "webhook " + shown_url_ + " rejected a batch of " + std::to_string(current->alerts) +
                 " alerts (" + r.detail + "); dropped (reason: rejected)",
             current->alerts);
      if (current->spooled) pop_spool_front();
      current.reset();
      continue;
    }
    counters_.retries.fetch_add(1, std::memory_order_relaxed);
    if (consecutive_failures_++ == 0)
      notice(plan::Severity::Warning, notice_id(NoticeKind::WebhookDown),
             "webhook " + shown_url_ + ": " + r.detail + "; retrying with backoff" +
                 (spool_ ? ", spooling to " + spool_->dir() : std::string()));
    if (!current->spooled && spool_ && ++current->attempts >= options_.attempts_before_spool) {
      to_spool(*current);
      if (!current->spooled) current.reset();  // the spool was full: counted, dropped
    }
    if (past_drain_deadline()) break;
    // Spill the queue to disk only once nothing older than it is held in memory.
    wait_backoff(Clock::now() + next_backoff(), !current || current->spooled);
  }
  keep_leftovers(current);
  report_drops();
}

// Puts a batch from memory at the end of the spool; it becomes the spool's front only when the
// spool was empty, which is the only time a memory batch is sent (see next_batch).
void WebhookDelivery::to_spool(Batch& batch) {
  if (spool_->push(batch.body, batch.alerts)) {
    counters_.spooled.fetch_add(batch.alerts, std::memory_order_relaxed);
    batch.spooled = spool_->batches() == 1;
  } else {
    counters_.spool_full.fetch_add(batch.alerts, std::memory_order_relaxed);
  }
  update_spool_counters();
}

void WebhookDelivery::update_spool_counters() {
  counters_.spool_lost.store(spool_->lost_alerts(), std::memory_order_relaxed);
  counters_.spool_bytes.store(spool_->bytes(), std::memory_order_relaxed);
  counters_.spool_batches.store(spool_->batches(), std::memory_order_relaxed);
}

void WebhookDelivery::pop_spool_front() {
  spool_->pop_front();
  update_spool_counters();
}

// Sleeps until `until` (or the drain deadline once stopping); meanwhile, with `spill`, every
// full batch's worth of the queue goes to disk, so an endpoint that stays down fills the spool,
// not the queue.
void WebhookDelivery::wait_backoff(Clock::time_point until, bool spill) {
  spill = spill && spool_;
  std::unique_lock lock(mu_);
  while (true) {
    bool was_stopping = stopping_;
    auto deadline = stopping_ ? std::min(until, drain_deadline_) : until;
    cv_.wait_until(lock, deadline, [&] {
      return stopping_ != was_stopping || (spill && queue_.size() >= options_.batch_max);
    });
    if (Clock::now() >= deadline) return;
    if (stopping_ != was_stopping) continue;  // the deadline just moved closer
    Batch batch = take_batch(lock);
    lock.unlock();
    to_spool(batch);
    lock.lock();
  }
}

// At exit: what the endpoint did not take in time goes to the spool, in order, or is counted.
void WebhookDelivery::keep_leftovers(std::optional<Batch>& current) {
  if (current && !current->spooled) {
    if (spool_)
      to_spool(*current);
    else
      counters_.at_exit.fetch_add(current->alerts, std::memory_order_relaxed);
  }
  current.reset();
  std::unique_lock lock(mu_);
  while (!queue_.empty()) {
    if (!spool_) {
      counters_.at_exit.fetch_add(queue_.size(), std::memory_order_relaxed);
      queue_.clear();
      break;
    }
    Batch batch = take_batch(lock);
    lock.unlock();
    to_spool(batch);
    lock.lock();
  }
  uint64_t at_exit = counters_.at_exit.load();
  lock.unlock();
  if (at_exit)
    notice(plan::Severity::Error, notice_id(NoticeKind::Drops),
           "webhook " + shown_url_ + ": " + std::to_string(at_exit) +
               " alerts were not delivered before exit and there is no spool to keep them (reason: exit)",
           at_exit);
}

void WebhookDelivery::report_drops() {
  auto report = [&](std::atomic<uint64_t>& counter, uint64_t& reported, const char* reason, const char* why) {
    uint64_t now = counter.load(std::memory_order_relaxed);
    if (now == reported) return;
    uint64_t delta = now - reported;
    reported = now;
    notice(plan::Severity::Error, notice_id(NoticeKind::Drops),
           "webhook " + shown_url_ + ": dropped " + std::to_string(delta) + " alerts (reason: " + reason +
               ", " + why + ")",
           delta);
  };
  report(counters_.queue_full, reported_queue_full_, "queue_full", "the in-memory queue was full");
  report(counters_.spool_full, reported_spool_full_, "spool_full",
         "the endpoint is down and the spool is full");
  report(counters_.spool_lost, reported_spool_lost_, "spool_lost", "spooled batches could not be read back");
}

// Exponential from retry_initial to retry_max, with "equal jitter": half fixed, half random, so
// that many agents restarted together do not retry in step.
std::chrono::milliseconds WebhookDelivery::next_backoff() {
  int64_t base = options_.retry_initial.count();
  for (int k = 1; k < consecutive_failures_ && base < options_.retry_max.count(); ++k) base *= 2;
  base = std::min<int64_t>(base, options_.retry_max.count());
  jitter_state_ ^= jitter_state_ << 13;
  jitter_state_ ^= jitter_state_ >> 7;
  jitter_state_ ^= jitter_state_ << 17;
  int64_t half = base / 2;
  int64_t jitter = half > 0 ? static_cast<int64_t>(jitter_state_ % static_cast<uint64_t>(half + 1)) : 0;
  return std::chrono::milliseconds(base - half + jitter);
}

}  // namespace seam::runtime
