// A webhook's delivery counters reach seam's metrics through Sink::counters(), also behind a route.
#include <gtest/gtest.h>

#include "runtime/output/delivery_counters.hpp"
#include "runtime/output/routed_sink.hpp"
#include "runtime/output/sink.hpp"

namespace seam::runtime {
namespace {

const metrics::OutputCounter* find(const std::vector<metrics::OutputCounter>& all, const std::string& counter,
                                   const std::string& reason = "") {
  for (const auto& c : all)
    if (c.counter == counter && c.reason == reason) return &c;
  return nullptr;
}

TEST(DeliveryCounters, EveryCounterGaugeAndDropReason) {
  DeliveryStats s;
  s.accepted = 10;
  s.delivered = 6;
  s.batches_delivered = 2;
  s.retries = 3;
  s.spooled = 1;
  s.queue_depth = 4;
  s.spool_bytes = 512;
  s.spool_batches = 1;
  s.dropped_queue_full = 5;
  s.dropped_rejected = 7;
  std::vector<metrics::OutputCounter> out;
  append_delivery_counters("webhook:http://am", s, out);
  ASSERT_EQ(out.size(), 13u);
  for (const auto& c : out) EXPECT_EQ(c.output, "webhook:http://am");
  EXPECT_EQ(find(out, "delivered")->value, 6u);
  EXPECT_FALSE(find(out, "delivered")->gauge);
  EXPECT_EQ(find(out, "retries")->value, 3u);
  EXPECT_EQ(find(out, "queue_depth")->value, 4u);
  EXPECT_TRUE(find(out, "queue_depth")->gauge);
  EXPECT_TRUE(find(out, "spool_bytes")->gauge);
  EXPECT_EQ(find(out, "spool_bytes")->value, 512u);
  EXPECT_EQ(find(out, "dropped", "queue_full")->value, 5u);
  EXPECT_EQ(find(out, "dropped", "rejected")->value, 7u);
  EXPECT_EQ(find(out, "dropped", "spool_full")->value, 0u);  // present before it ever happens
  EXPECT_NE(find(out, "dropped", "at_exit"), nullptr);
  EXPECT_NE(find(out, "dropped", "spool_lost"), nullptr);
}

TEST(DeliveryCounters, WebhookSinkReportsThroughARouteAndHidesCredentials) {
  auto sink =
      make_sink("webhook:http://user:secret@127.0.0.1:1/hook,queue=3,retry=10ms,timeout=100ms,drain=0ms");
  ASSERT_TRUE(sink) << sink.error();
  RoutedSink routed(std::move(*sink), {[](const Alert&) { return true; }});
  Alert a;
  a.rule = "r";
  for (int i = 0; i < 3; ++i) routed.write(a);
  std::vector<metrics::OutputCounter> out;
  routed.counters(out);
  ASSERT_NE(find(out, "accepted"), nullptr);
  EXPECT_EQ(find(out, "accepted")->value, 3u);
  EXPECT_EQ(find(out, "accepted")->output, "webhook:http://127.0.0.1:1");

  std::vector<metrics::OutputCounter> none;
  auto plain = make_sink("stdout");
  ASSERT_TRUE(plain);
  (*plain)->counters(none);
  EXPECT_EQ(find(none, "accepted"), nullptr) << "stdout has its queue's counters, no delivery counters";
}

}  // namespace
}  // namespace seam::runtime
