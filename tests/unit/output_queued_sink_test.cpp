// An output behind its own queue: a consumer that stops never blocks the writer; what does not
// fit is dropped and counted; the queue drains at the end, and a writer stuck for good is left.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "runtime/output/queued_sink.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

using namespace std::chrono_literals;

// A sink whose writes wait until released: a stdout nobody reads.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> entered{0}, written{0}, flushed{0}, reopened{0};
  void release() {
    std::lock_guard lock(mu);
    open = true;
    cv.notify_all();
  }
};

class GatedSink : public Sink {
 public:
  explicit GatedSink(std::shared_ptr<Gate> gate) : gate_(std::move(gate)) {}
  void write(const Alert&) override {
    ++gate_->entered;
    std::unique_lock lock(gate_->mu);
    gate_->cv.wait(lock, [&] { return gate_->open; });
    ++gate_->written;
  }
  void write_notice(const Notice&) override { ++gate_->written; }
  void flush() override { ++gate_->flushed; }
  void reopen() override { ++gate_->reopened; }
  std::string name() const override { return "gated"; }

 private:
  std::shared_ptr<Gate> gate_;
};

TEST(OutputQueuedSink, AStalledConsumerDropsAndCountsItsOwnRecordsWithoutBlocking) {
  auto gate = std::make_shared<Gate>();
  Alert alert;
  alert.rule = "r";
  {
    QueuedSink sink(std::make_shared<GatedSink>(gate), 4);
    sink.write(alert);
    sink.flush();  // hands it over (the pipeline flushes per batch of records)
    ASSERT_TRUE(test::wait_until([&] { return gate->entered == 1; }, 5s));  // the worker is stuck in it
    for (int i = 0; i < 9; ++i) sink.write(alert);  // returns although nothing is written
    EXPECT_EQ(sink.dropped(), 5u);                  // 4 fit in the queue
    std::vector<metrics::OutputCounter> counters;
    sink.counters(counters);
    bool found = false;
    for (const auto& c : counters)
      if (c.output == "gated" && c.counter == "dropped" && c.reason == "queue_full")
        found = c.value == sink.dropped();
    EXPECT_TRUE(found);
    sink.reopen();
    gate->release();
    EXPECT_TRUE(test::wait_until([&] { return gate->written + static_cast<int>(sink.dropped()) == 10; }, 5s));
    EXPECT_TRUE(test::wait_until([&] { return gate->reopened == 1; }, 5s));
  }
  EXPECT_GE(gate->flushed, 1);  // at the end, at least
}

TEST(OutputQueuedSink, AWriterStuckForGoodIsLeftBehindAtTheEnd) {
  auto gate = std::make_shared<Gate>();
  {
    QueuedSink sink(std::make_shared<GatedSink>(gate), 16, 50ms);
    sink.write(Alert{});
  }  // returns after about 50 ms although the write never ends
  EXPECT_EQ(gate->written, 0);
  gate->release();  // lets the left-behind worker finish
  EXPECT_TRUE(test::wait_until([&] { return gate->written == 1; }, 5s));
}

}  // namespace
}  // namespace seam::runtime
