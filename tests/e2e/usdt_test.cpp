// USDT probes end to end: stdlib/usdt.seam's request span (inference_start .. inference_end,
// keyed by the request id) and its per-thread in_request state, attached through libbpf's USDT
// support to a fixture library built with <sys/sdt.h>, then driven by a program that serves
// requests, launches kernels inside and outside them, and hands one request to another thread.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

// Each request's span, and every kernel launch made while a request is being served on the
// thread, with the id of the request started last on that thread.
constexpr const char* kRules =
    "use usdt, cuda, app\n"
    "rule queued on app.queued alert info \"queued {id}\"\n"
    "rule request\n"
    "    on usdt.request\n"
    "    alert info \"request {id} took {duration}\"\n"
    "rule launch_in_request\n"
    "    on cuda.launch while usdt.in_request after usdt.request_start within 1m\n"
    "    alert info \"kernel launch in request {usdt.request_start.id}\"\n";

// A module of the test's own: a probe the stdlib does not declare, behind a semaphore that the
// fixture checks before firing it (so it fires only if seam set the semaphore when attaching).
constexpr const char* kModule =
    "module app\n"
    "library lib = \"libinference.so*\"\n"
    "point queued = usdt lib:inference:request_queued (id: u64)\n";

struct Request {
  uint64_t id;
  int launches;
  uint64_t us;
  bool handed_over;  // ends on another thread
};

class Usdt : public ::testing::Test {
 protected:
  // Runs usdt_app with `requests` under seam; returns the alerts once `expected` arrived, and
  // the app's own measure of each request (ns, an upper bound of the span) in `measured`.
  std::vector<nlohmann::json> run(const std::vector<Request>& requests, size_t expected) {
    std::vector<std::string> argv = {std::string(SEAM_FIXTURE_DIR) + "/usdt_app",
                                     std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12",
                                     dir_.path() + "/requests.log"};
    for (const Request& r : requests)
      argv.push_back(std::to_string(r.id) + ":" + std::to_string(r.launches) + ":" + std::to_string(r.us) +
                     (r.handed_over ? ":t" : ""));
    Child app(argv);
    EXPECT_TRUE(app.wait_for_line("ready", std::chrono::seconds(10)));
    std::string rules = dir_.write("usdt.seam", kRules);
    std::string module = dir_.write("modules/app.seam", kModule);
    SeamRun seam(dir_.path(), {module, rules, "--pid", std::to_string(app.pid())});
    EXPECT_TRUE(seam.wait_for_notice("attached", "libinference.so", std::chrono::seconds(30)))
        << seam.stderr_text();
    EXPECT_TRUE(seam.wait_for_notice("attached", "libcudart.so.12", std::chrono::seconds(10)))
        << seam.stderr_text();
    app.send_line("go");
    EXPECT_TRUE(app.wait_for_line("done", std::chrono::seconds(20)));
    EXPECT_EQ(app.wait(), 0);
    wait_until([&] { return seam.alerts().size() >= expected; }, std::chrono::seconds(10));
    EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
    stderr_ = seam.stderr_text();
    std::ifstream log(dir_.path() + "/requests.log");
    for (uint64_t id, ns; log >> id >> ns;) measured_[id] = static_cast<int64_t>(ns);
    return seam.alerts();
  }
  TempDir dir_;
  std::string stderr_;
  std::map<uint64_t, int64_t> measured_;  // the app's own clock around each request
};

TEST_F(Usdt, SpansKeyedByRequestIdAndLaunchesCountedPerRequest) {
  SEAM_REQUIRE_ROOT();
  // usdt_app also makes one launch after each request, outside it: in_request must not count it.
  std::vector<Request> requests = {
      {101, 3, 20000, false}, {102, 0, 30000, false}, {103, 5, 10000, false}, {104, 0, 15000, true}};
  std::vector<nlohmann::json> alerts = run(requests, 4 + 3 + 5 + 3);
  std::map<uint64_t, std::vector<int64_t>> spans;
  std::map<uint64_t, int> launches;
  std::vector<uint64_t> queued;
  for (const nlohmann::json& a : alerts) {
    if (a.value("rule", "") == "request")
      spans[a["fields"].value("id", 0ull)].push_back(a["fields"].value("duration", 0ll));
    if (a.value("rule", "") == "launch_in_request")
      ++launches[a["fields"].value("usdt.request_start.id", 0ull)];
    if (a.value("rule", "") == "queued") queued.push_back(a["fields"].value("id", 0ull));
  }
  ASSERT_EQ(spans.size(), 4u) << stderr_;
  for (const Request& r : requests) {
    ASSERT_EQ(spans[r.id].size(), 1u) << "request " << r.id;
    EXPECT_GE(spans[r.id][0], static_cast<int64_t>(r.us) * 1000) << "request " << r.id;
    EXPECT_LE(spans[r.id][0], measured_[r.id]) << "request " << r.id;
  }
  // The launch after request 104 belongs to no request: 104 ended on another thread. in_request is
  // per thread (set and cleared on the same thread), so the thread that started 104 still holds
  // it, but `after usdt.request_start` needs the request in flight (request_start begins the span
  // usdt.request, keyed by id), and 104's span has ended.
  EXPECT_EQ(launches, (std::map<uint64_t, int>{{101, 3}, {103, 5}}));
  // request_queued fires in inference_run only (not for the handed-over request), and only
  // because seam set its semaphore.
  EXPECT_EQ(queued, (std::vector<uint64_t>{101, 102, 103}));
  EXPECT_EQ(alerts.size(), 4u + 3 + 5 + 3);
}

}  // namespace
}  // namespace seam::test
