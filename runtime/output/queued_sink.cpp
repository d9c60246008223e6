#include "runtime/output/queued_sink.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <variant>

namespace seam::runtime {

// Shared with the worker, which may outlive the sink when it is stuck in a write.
struct QueuedSink::State {
  std::shared_ptr<Sink> inner;
  size_t capacity = 0;
  std::mutex mu;
  std::condition_variable wake, done_cv;
  std::deque<std::variant<Alert, Notice>> queue;
  bool flush = false, reopen = false, stop = false, done = false;
  std::atomic<uint64_t> dropped{0}, depth{0};

  void run() {
    std::unique_lock lock(mu);
    for (;;) {
      wake.wait(lock, [&] { return stop || flush || reopen || !queue.empty(); });
      std::deque<std::variant<Alert, Notice>> batch;
      batch.swap(queue);
      bool do_reopen = std::exchange(reopen, false);
      bool do_flush = std::exchange(flush, false) || !batch.empty();
      bool stopping = stop && batch.empty();
      lock.unlock();
      if (do_reopen) inner->reopen();
      for (auto& item : batch) {
        if (auto* a = std::get_if<Alert>(&item))
          inner->write(*a);
        else
          inner->write_notice(std::get<Notice>(item));
        depth.fetch_sub(1, std::memory_order_relaxed);
      }
      if (do_flush || stopping) inner->flush();
      lock.lock();
      if (stopping && queue.empty()) {
        done = true;
        done_cv.notify_all();
        return;
      }
    }
  }

  template <class T>
  void push(const T& item) {
    {
      std::lock_guard lock(mu);
      if (queue.size() >= capacity) {
        dropped.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      queue.emplace_back(item);
      depth.fetch_add(1, std::memory_order_relaxed);
    }
    wake.notify_one();
  }
};

QueuedSink::QueuedSink(std::shared_ptr<Sink> inner, size_t capacity, std::chrono::milliseconds drain)
    : state_(std::make_shared<State>()), name_(inner->name()), drain_(drain) {
  state_->inner = std::move(inner);
  state_->capacity = capacity ? capacity : 1;
  worker_ = std::thread([state = state_] { state->run(); });
}

QueuedSink::~QueuedSink() {
  std::unique_lock lock(state_->mu);
  state_->stop = true;
  state_->wake.notify_one();
  bool finished = state_->done_cv.wait_for(lock, drain_, [&] { return state_->done; });
  lock.unlock();
  if (finished)
    worker_.join();
  else
    worker_.detach();  // blocked in write(2) on a reader that never reads: not waited for
}

void QueuedSink::write(const Alert& alert) {
  state_->push(alert);
}
void QueuedSink::write_notice(const Notice& notice) {
  state_->push(notice);
}

void QueuedSink::flush() {
  {
    std::lock_guard lock(state_->mu);
    state_->flush = true;
  }
  state_->wake.notify_one();
}

void QueuedSink::reopen() {
  {
    std::lock_guard lock(state_->mu);
    state_->reopen = true;
  }
  state_->wake.notify_one();
}

bool QueuedSink::ended() const {
  return state_->inner->ended();
}
uint64_t QueuedSink::dropped() const {
  return state_->dropped.load(std::memory_order_relaxed);
}

void QueuedSink::counters(std::vector<metrics::OutputCounter>& out) const {
  state_->inner->counters(out);
  if (name_.empty()) return;
  out.push_back({name_, "dropped", dropped(), false, "queue_full"});
  out.push_back({name_, "queue_depth", state_->depth.load(std::memory_order_relaxed), true, ""});
}

}  // namespace seam::runtime
