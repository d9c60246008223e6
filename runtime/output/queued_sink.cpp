#include "runtime/output/queued_sink.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <utility>
#include <variant>
#include <vector>

namespace seam::runtime {

namespace {

constexpr std::chrono::nanoseconds kMaxWait = std::chrono::milliseconds(100);  // at most, at once
constexpr int kWaitShare = 10;  // the budget grows by 1/kWaitShare of the time that passes

using Item = std::variant<Alert, Notice>;

// A batch of queued records: items [0, size) are queued; the slots past them are kept, so that
// the next records copy into strings and vectors that already have their capacity.
struct Batch {
  static constexpr size_t kKeep = 2 * QueuedSink::kBatch;  // slots kept after a larger batch

  std::vector<Item> items;
  size_t size = 0;

  template <class T>
  void put(const T& record) {
    if (size == items.size()) {
      items.emplace_back(record);
    } else if (T* slot = std::get_if<T>(&items[size])) {
      *slot = record;
    } else {
      items[size] = record;
    }
    ++size;
  }
  void clear() {
    size = 0;
    if (items.size() > kKeep) items.erase(items.begin() + kKeep, items.end());
  }
};

}  // namespace

// Shared with the worker, which may outlive the sink when it is stuck in a write.
struct QueuedSink::State {
  std::shared_ptr<Sink> inner;
  size_t capacity = 0;
  std::mutex mu;
  std::condition_variable wake, done_cv;
  Batch filling;  // the writers' side; the worker swaps it for the batch it has written
  bool flush = false, reopen = false, stop = false, done = false;
  bool idle = false;       // the worker waits on `wake`
  bool unflushed = false;  // the worker wrote to `inner` since its last flush
  std::atomic<uint64_t> dropped{0}, depth{0};
  // A full queue first waits for room, within a budget of kWaitShare of the writer's time, so
  // that a burst an output is slow to write waits in the ring (4 MiB) rather than being dropped;
  // an output stalled for good costs the reading thread that share and then drops.
  std::condition_variable room;
  bool waiting_for_room = false;
  std::chrono::nanoseconds wait_budget{kMaxWait};
  std::chrono::steady_clock::time_point budget_at = std::chrono::steady_clock::now();

  bool has_work() const { return stop || reopen || flush || filling.size >= kBatch; }

  void run() {
    Batch writing;
    std::unique_lock lock(mu);
    for (;;) {
      idle = true;
      wake.wait(lock, [&] { return has_work(); });
      idle = false;
      std::swap(writing, filling);
      if (waiting_for_room) room.notify_all();
      bool do_reopen = std::exchange(reopen, false);
      bool do_flush = std::exchange(flush, false);
      bool stopping = stop;
      lock.unlock();
      if (do_reopen) inner->reopen();
      for (size_t i = 0; i < writing.size; ++i) {
        if (auto* a = std::get_if<Alert>(&writing.items[i]))
          inner->write(*a);
        else
          inner->write_notice(std::get<Notice>(writing.items[i]));
      }
      depth.fetch_sub(writing.size, std::memory_order_relaxed);
      bool wrote = writing.size > 0;
      writing.clear();
      if (do_flush || stopping) inner->flush();
      lock.lock();
      unflushed = !(do_flush || stopping) && (unflushed || wrote);
      if (stopping && filling.size == 0) {
        done = true;
        done_cv.notify_all();
        return;
      }
    }
  }

  // Waits until the worker takes the queue or the budget is spent; true when there is room.
  bool wait_for_room(std::unique_lock<std::mutex>& lock, size_t limit) {
    auto now = std::chrono::steady_clock::now();
    wait_budget = std::min<std::chrono::nanoseconds>(kMaxWait, wait_budget + (now - budget_at) / kWaitShare);
    budget_at = now;
    if (wait_budget <= std::chrono::nanoseconds::zero()) return false;
    flush = true;  // a queue smaller than a batch is taken too
    if (idle) wake.notify_one();
    waiting_for_room = true;
    bool roomy = room.wait_for(lock, wait_budget, [&] { return filling.size < limit || stop; });
    waiting_for_room = false;
    auto after = std::chrono::steady_clock::now();
    wait_budget -= after - now;
    return roomy && filling.size < limit;
  }

  // Queues a record unless `limit` records wait already (beside the batch being written, as
  // a queue that hands out all it holds at once); `now`: hand it over without waiting for a batch.
  template <class T>
  void push(const T& record, bool now, size_t limit) {
    bool wake_worker = false;
    {
      std::unique_lock lock(mu);
      if (filling.size >= limit && !wait_for_room(lock, limit)) {
        dropped.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      filling.put(record);
      depth.fetch_add(1, std::memory_order_relaxed);
      if (now) flush = true;
      wake_worker = idle && has_work();
    }
    if (wake_worker) wake.notify_one();
  }
};

QueuedSink::QueuedSink(std::shared_ptr<Sink> inner, size_t capacity, std::chrono::milliseconds drain)
    : state_(std::make_shared<State>()),
      name_(inner->name()),
      alerts_(inner->writes_alerts()),
      drain_(drain) {
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
  if (alerts_) state_->push(alert, false, state_->capacity);
}
void QueuedSink::write_notice(const Notice& notice) {
  state_->push(notice, true, state_->capacity + kNoticeReserve);
}

void QueuedSink::flush() {
  bool wake_worker = false;
  {
    std::lock_guard lock(state_->mu);
    if (state_->filling.size == 0 && !state_->unflushed) return;  // nothing waits: no wakeup
    state_->flush = true;
    wake_worker = state_->idle;
  }
  if (wake_worker) state_->wake.notify_one();
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
