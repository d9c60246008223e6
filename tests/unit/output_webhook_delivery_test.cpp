// Webhook delivery against a real HTTP server in the test: failures, hangs and recovery keep
// every alert exactly once and in order; a too-small queue and spool drop exactly what they
// count; the spool survives a restart; secrets never reach a notice; write() never waits.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "runtime/output/webhook_format.hpp"
#include "runtime/output/webhook_sink.hpp"
#include "support/test_support.hpp"
#include "unit/output_webhook_http_server.hpp"

namespace seam::runtime {
namespace {

using namespace std::chrono_literals;

Alert numbered(int n) {
  Alert a;
  a.time_ns = 1796022723'000'000'000 + n;
  a.rule = "r";
  a.file = "rules/r.seam";
  a.line = 3;
  a.message = "alert " + std::to_string(n);
  a.pid = static_cast<uint32_t>(n);
  a.comm = "worker";
  return a;
}

// What the server accepted (answered 2xx), in arrival order, by the alerts' pid.
struct Received {
  std::mutex mu;
  std::vector<int> pids;
  int requests = 0;
  void add(const std::string& body) {
    auto batch = nlohmann::json::parse(body);
    std::lock_guard lock(mu);
    for (const auto& a : batch) pids.push_back(a["pid"].get<int>());
  }
  size_t count() {
    std::lock_guard lock(mu);
    return pids.size();
  }
  std::vector<int> snapshot() {
    std::lock_guard lock(mu);
    return pids;
  }
};

struct Notices {
  std::mutex mu;
  std::vector<Notice> all;
  NoticeCallback callback() {
    return [this](const Notice& n) {
      std::lock_guard lock(mu);
      all.push_back(n);
    };
  }
  uint64_t drop_count() {
    std::lock_guard lock(mu);
    uint64_t sum = 0;
    for (const Notice& n : all)
      if (n.kind == "drops") sum += n.count;
    return sum;
  }
  std::string text() {
    std::lock_guard lock(mu);
    std::string s;
    for (const Notice& n : all) s += n.kind + ": " + n.message + "\n";
    return s;
  }
};

WebhookOptions fast_options(const std::string& url) {
  WebhookOptions o;
  o.url = url;
  o.batch_max = 5;
  o.batch_wait = 5ms;
  o.timeout = 300ms;
  o.retry_initial = 10ms;
  o.retry_max = 80ms;
  o.attempts_before_spool = 2;
  o.drain_timeout = 2000ms;
  return o;
}

std::vector<int> iota(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) v[static_cast<size_t>(k)] = k;
  return v;
}

// 503 for the first `fail` requests, then hang for `hang` requests, then 200.
void fail_hang_recover(bool with_spool) {
  Received got;
  std::atomic<int> n{0};
  test::TestHttpServer server([&](const test::HttpRequest& req) {
    int k = n++;
    if (k < 3) return test::HttpReply{503, "", false};
    if (k < 5) return test::HttpReply{0, "", true};
    got.add(req.body);
    return test::HttpReply{200, "{}", false};
  });
  test::TempDir dir;
  WebhookOptions o = fast_options(server.url("/hook"));
  if (with_spool) o.spool_dir = dir.path() + "/spool";
  Notices notices;
  auto sink = WebhookSink::create(o, notices.callback());
  ASSERT_TRUE(sink.ok()) << sink.error();
  constexpr int kAlerts = 40;
  for (int k = 0; k < kAlerts; ++k) {
    (*sink)->write(numbered(k));
    if (k % 10 == 9) (*sink)->flush();
  }
  ASSERT_TRUE(test::wait_until([&] { return got.count() >= kAlerts; }, 20s)) << notices.text();
  (*sink)->finish();
  EXPECT_EQ(got.snapshot(), iota(kAlerts));  // each exactly once, in order
  DeliveryStats s = (*sink)->stats();
  EXPECT_EQ(s.delivered, uint64_t{kAlerts});
  EXPECT_EQ(s.dropped(), 0u);
  EXPECT_GE(s.retries, 5u);  // three 503s and two timeouts
  EXPECT_NE(notices.text().find("HTTP 503; retrying"), std::string::npos) << notices.text();
  EXPECT_NE(notices.text().find("delivering again"), std::string::npos) << notices.text();
  if (with_spool) {
    EXPECT_GT(s.spooled, 0u);
    EXPECT_EQ(s.spool_batches, 0u);
  }
}

TEST(OutputWebhookDelivery, FailuresThenHangThenRecoveryDeliverEveryAlertOnceInOrder) {
  fail_hang_recover(true);
}

TEST(OutputWebhookDelivery, WithoutSpoolTheQueueHoldsThroughAnOutage) {
  fail_hang_recover(false);
}

TEST(OutputWebhookDelivery, TooSmallQueueAndSpoolDropExactlyWhatDidNotArrive) {
  Received got;
  std::atomic<bool> up{false};
  test::TestHttpServer server([&](const test::HttpRequest& req) {
    if (!up) return test::HttpReply{503, "", false};
    got.add(req.body);
    return test::HttpReply{200, "{}", false};
  });
  test::TempDir dir;
  WebhookOptions o = fast_options(server.url("/hook"));
  o.batch_max = 2;
  o.queue_max = 4;
  o.spool_dir = dir.path() + "/spool";
  o.spool_max_bytes = 3 * webhook_json_body(std::vector<Alert>{numbered(10), numbered(11)}).size();
  o.attempts_before_spool = 1;
  Notices notices;
  auto sink = WebhookSink::create(o, notices.callback());
  ASSERT_TRUE(sink.ok()) << sink.error();
  constexpr int kAlerts = 80;
  for (int k = 0; k < kAlerts; ++k) {
    (*sink)->write(numbered(k));
    if (k % 20 == 0) std::this_thread::sleep_for(20ms);  // pacing: let the spool fill, not just the queue
  }
  DeliveryStats down = (*sink)->stats();
  EXPECT_GT(down.dropped_spool_full + down.dropped_queue_full, 0u);
  up = true;
  ASSERT_TRUE(test::wait_until(
      [&] {
        DeliveryStats s = (*sink)->stats();
        return s.delivered + s.dropped() == kAlerts;
      },
      20s))
      << notices.text();
  (*sink)->finish();
  DeliveryStats s = (*sink)->stats();
  std::vector<int> pids = got.snapshot();
  EXPECT_EQ(pids.size() + s.dropped(), size_t{kAlerts});
  EXPECT_EQ(s.delivered, pids.size());
  EXPECT_GT(s.dropped_spool_full, 0u) << notices.text();
  EXPECT_TRUE(std::is_sorted(pids.begin(), pids.end()));
  EXPECT_EQ(std::adjacent_find(pids.begin(), pids.end()), pids.end());  // no duplicates
  EXPECT_EQ(notices.drop_count(), s.dropped()) << notices.text();       // every drop reported
  EXPECT_NE(notices.text().find("reason: spool_full"), std::string::npos) << notices.text();
}

TEST(OutputWebhookDelivery, RejectedBatchesAreCountedAndLaterOnesStillArrive) {
  Received got;
  std::atomic<int> n{0};
  test::TestHttpServer server([&](const test::HttpRequest& req) {
    if (n++ == 0) return test::HttpReply{400, "bad", false};
    got.add(req.body);
    return test::HttpReply{200, "{}", false};
  });
  WebhookOptions o = fast_options(server.url("/hook"));
  Notices notices;
  auto sink = WebhookSink::create(o, notices.callback());
  ASSERT_TRUE(sink.ok());
  for (int k = 0; k < 5; ++k) (*sink)->write(numbered(k));  // one full batch: rejected
  ASSERT_TRUE(test::wait_until([&] { return (*sink)->stats().dropped_rejected == 5; }, 5s)) << notices.text();
  for (int k = 5; k < 8; ++k) (*sink)->write(numbered(k));
  ASSERT_TRUE(test::wait_until([&] { return got.count() == 3; }, 5s));
  EXPECT_EQ(got.snapshot(), (std::vector<int>{5, 6, 7}));
  EXPECT_NE(notices.text().find("rejected a batch of 5 alerts (HTTP 400)"), std::string::npos)
      << notices.text();
  EXPECT_EQ((*sink)->stats().retries, 0u);
}

TEST(OutputWebhookDelivery, SpoolSurvivesARestartAndIsReplayedFirst) {
  test::TempDir dir;
  std::string spool = dir.path() + "/spool";
  {
    // Nothing listens on port 1: connection refused, every time.
    std::string dead_url = "http://127.0.0.1:1/hook";
    WebhookOptions o = fast_options(dead_url);
    o.spool_dir = spool;
    o.drain_timeout = 200ms;
    auto sink = WebhookSink::create(o, {});
    ASSERT_TRUE(sink.ok());
    for (int k = 0; k < 12; ++k) (*sink)->write(numbered(k));
    (*sink)->finish();
    EXPECT_EQ((*sink)->stats().spooled, 12u);
    EXPECT_EQ((*sink)->stats().dropped(), 0u);
  }
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(spool)) files += e.path().extension() == ".json";
  EXPECT_EQ(files, 3u);  // batches of 5, 5, 2

  Received got;
  test::TestHttpServer server([&](const test::HttpRequest& req) {
    got.add(req.body);
    return test::HttpReply{200, "{}", false};
  });
  WebhookOptions o = fast_options(server.url("/hook"));
  o.spool_dir = spool;
  Notices notices;
  auto sink = WebhookSink::create(o, notices.callback());
  ASSERT_TRUE(sink.ok());
  for (int k = 12; k < 15; ++k) (*sink)->write(numbered(k));
  ASSERT_TRUE(test::wait_until([&] { return got.count() == 15; }, 10s)) << notices.text();
  EXPECT_EQ(got.snapshot(), iota(15));
  EXPECT_NE(notices.text().find("replaying 12 spooled alerts"), std::string::npos) << notices.text();
  EXPECT_TRUE(std::filesystem::is_empty(spool));
}

TEST(OutputWebhookDelivery, ASpoolFileRemovedByHandIsCountedAsLost) {
  Received got;
  std::atomic<bool> up{false};
  test::TestHttpServer server([&](const test::HttpRequest& req) {
    if (!up) return test::HttpReply{503, "", false};
    got.add(req.body);
    return test::HttpReply{200, "{}", false};
  });
  test::TempDir dir;
  std::string spool = dir.path() + "/spool";
  std::filesystem::create_directories(spool);  // with a half-written batch from a crash: removed at start
  std::string tmp = spool + "/00000000000000000099-1.json.tmp";
  { std::ofstream(tmp) << "[{"; }
  WebhookOptions o = fast_options(server.url("/hook"));
  o.spool_dir = spool;
  o.attempts_before_spool = 1;
  Notices notices;
  auto sink = WebhookSink::create(o, notices.callback());
  ASSERT_TRUE(sink.ok());
  EXPECT_FALSE(std::filesystem::exists(tmp));
  for (int k = 0; k < 12; ++k) (*sink)->write(numbered(k));
  ASSERT_TRUE(test::wait_until([&] { return (*sink)->stats().spool_batches == 2; }, 5s)) << notices.text();
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(spool)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 2u);
  auto lost = nlohmann::json::parse(test::read_file(files[1]));
  std::filesystem::remove(files[1]);
  up = true;
  ASSERT_TRUE(test::wait_until(
      [&] {
        DeliveryStats s = (*sink)->stats();
        return s.delivered + s.dropped() == 12;
      },
      10s))
      << notices.text();
  DeliveryStats s = (*sink)->stats();
  EXPECT_EQ(s.dropped_spool_lost, lost.size());
  std::vector<int> expected;
  for (int k = 0; k < 12; ++k) {
    bool was_lost = false;
    for (const auto& a : lost) was_lost |= a["pid"] == k;
    if (!was_lost) expected.push_back(k);
  }
  EXPECT_EQ(got.snapshot(), expected);
  (*sink)->finish();
  EXPECT_NE(notices.text().find("reason: spool_lost"), std::string::npos) << notices.text();
}

TEST(OutputWebhookDelivery, SecretsFromTheEnvironmentAreSentButNeverPrinted) {
  std::mutex mu;
  std::string authorization;
  std::atomic<int> n{0};
  test::TestHttpServer server([&](const test::HttpRequest& req) {
    {
      std::lock_guard lock(mu);
      authorization = req.header("Authorization");
    }
    int k = n++;
    if (k == 0) return test::HttpReply{503, "", false};
    if (k == 1) return test::HttpReply{401, "", false};
    return test::HttpReply{200, "{}", false};
  });
  auto getenv = [](const char* name) -> const char* {
    return std::string(name) == "SEAM_TEST_TOKEN" ? "s3cr3t-token-value" : nullptr;
  };
  std::string url = server.url("/hook");
  url.insert(7, "user:pa55word@");
  auto o = parse_webhook_spec(url + ",header=Authorization:Bearer $SEAM_TEST_TOKEN,insecure", getenv);
  ASSERT_TRUE(o.ok()) << o.error();
  o->batch_wait = 5ms;
  o->retry_initial = 10ms;
  Notices notices;
  auto sink = WebhookSink::create(*o, notices.callback());
  ASSERT_TRUE(sink.ok());
  (*sink)->write(numbered(1));  // 503, then 401: rejected
  ASSERT_TRUE(test::wait_until([&] { return (*sink)->stats().dropped_rejected == 1; }, 5s));
  (*sink)->write(numbered(2));
  ASSERT_TRUE(test::wait_until([&] { return (*sink)->stats().delivered == 1; }, 5s));
  (*sink)->finish();
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(authorization, "Bearer s3cr3t-token-value");
  }
  std::string text = notices.text();
  EXPECT_NE(text.find("webhook-insecure"), std::string::npos) << text;
  EXPECT_NE(text.find("rejected"), std::string::npos) << text;
  EXPECT_NE(text.find("webhook http://127.0.0.1:"), std::string::npos) << text;
  EXPECT_EQ(text.find("s3cr3t"), std::string::npos) << text;
  EXPECT_EQ(text.find("pa55word"), std::string::npos) << text;
}

TEST(OutputWebhookDelivery, WriteNeverWaitsForAHangingEndpoint) {
  test::TestHttpServer server([](const test::HttpRequest&) { return test::HttpReply{0, "", true}; });
  WebhookOptions o = fast_options(server.url("/hook"));
  o.timeout = 2000ms;
  o.queue_max = 100;
  o.drain_timeout = 100ms;
  auto sink = WebhookSink::create(o, {});
  ASSERT_TRUE(sink.ok());
  (*sink)->write(numbered(0));
  ASSERT_TRUE(test::wait_until([&] { return (*sink)->stats().queue_depth == 0; }, 5s));  // the POST hangs now
  auto start = std::chrono::steady_clock::now();
  for (int k = 1; k <= 1000; ++k) {
    (*sink)->write(numbered(k));
    (*sink)->flush();
  }
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, 1s);  // a POST takes 2 s: nothing waited for it
  DeliveryStats s = (*sink)->stats();
  EXPECT_EQ(s.accepted, 101u);
  EXPECT_EQ(s.dropped_queue_full, 900u);
}

}  // namespace
}  // namespace seam::runtime
