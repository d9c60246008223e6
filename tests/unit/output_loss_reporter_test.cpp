// An output's own losses are told: a slow output behind its queue drops in a flood, and the
// reporter turns the count into an `output-drops` notice naming the output, with the count since
// the last notice; nothing is told twice, and a webhook's (which tells its own) is skipped.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "runtime/output/output_loss_reporter.hpp"
#include "runtime/output/queued_sink.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

using namespace std::chrono_literals;

// A sink that writes nothing until released: a disk or a reader that has stopped.
struct Stall {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> entered{0};
  void release() {
    std::lock_guard lock(mu);
    open = true;
    cv.notify_all();
  }
};

class SlowSink : public Sink {
 public:
  explicit SlowSink(std::shared_ptr<Stall> stall) : stall_(std::move(stall)) {}
  void write(const Alert&) override { wait(); }
  void write_notice(const Notice&) override { wait(); }
  void flush() override {}
  std::string name() const override { return "json:/slow"; }

 private:
  void wait() {
    ++stall_->entered;
    std::unique_lock lock(stall_->mu);
    stall_->cv.wait(lock, [&] { return stall_->open; });
  }
  std::shared_ptr<Stall> stall_;
};

// A sink with its own queue and drop counters, as a webhook is.
class OwnQueueSink : public Sink {
 public:
  void write(const Alert&) override {}
  void write_notice(const Notice&) override {}
  void flush() override {}
  bool queues_itself() const override { return true; }
  void counters(std::vector<metrics::OutputCounter>& out) const override {
    out.push_back({"webhook:http://h", "dropped", 7, false, "queue_full"});
  }
};

TEST(OutputLossReporter, AFloodedSlowOutputsLossIsToldWithItsCount) {
  auto stall = std::make_shared<Stall>();
  {
    auto queued = std::make_shared<QueuedSink>(std::make_shared<SlowSink>(stall), 100);
    std::vector<std::shared_ptr<Sink>> sinks{queued, std::make_shared<OwnQueueSink>()};
    OutputLossReporter reporter;
    EXPECT_TRUE(reporter.take(sinks).empty());  // nothing lost yet

    Alert alert;
    alert.rule = "every";
    queued->write(alert);
    queued->flush();
    ASSERT_TRUE(test::wait_until([&] { return stall->entered == 1; }, 5s));  // the output is stuck
    for (int i = 0; i < 1000; ++i) queued->write(alert);                     // the flood
    ASSERT_EQ(queued->dropped(), 900u);  // 100 wait beside the one being written

    std::vector<Notice> told = reporter.take(sinks);
    ASSERT_EQ(told.size(), 1u);  // the webhook-like sink tells its own
    EXPECT_EQ(told[0].kind, "output-drops");
    EXPECT_EQ(told[0].severity, plan::Severity::Warning);
    EXPECT_EQ(told[0].output, "json:/slow");
    EXPECT_EQ(told[0].count, 900u);
    EXPECT_EQ(
        told[0].message,
        "output json:/slow: 900 alerts and notices lost (900 in all): its queue was full, the output fell "
        "behind");
    EXPECT_TRUE(reporter.take(sinks).empty());  // told once

    for (int i = 0; i < 5; ++i) queued->write(alert);
    told = reporter.take(sinks);
    ASSERT_EQ(told.size(), 1u);
    EXPECT_EQ(told[0].count, 5u);  // only what is new
    EXPECT_NE(told[0].message.find("(905 in all)"), std::string::npos) << told[0].message;
    stall->release();
  }
}

}  // namespace
}  // namespace seam::runtime
