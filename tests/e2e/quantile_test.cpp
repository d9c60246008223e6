// Quantiles of seam's kernel histograms against the truth: a fixture makes 1,000 calls whose
// durations it measures itself, and the windowed rules' p50 and p99 are within 2% of the exact
// quantiles of those durations. /metrics serves the fixed bucket set of docs/metrics.md.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<uint64_t> read_durations(const std::string& path) {
  std::vector<uint64_t> out;
  std::ifstream in(path);
  for (uint64_t ns; in >> ns;) out.push_back(ns);
  return out;
}

// The exact q-quantile: the smallest duration with at least q × n durations at or below it.
double exact_quantile(std::vector<uint64_t> values, double q) {
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  return static_cast<double>(values[rank == 0 ? 0 : rank - 1]);
}

// The value of the newest alert of `rule` sent after `after_ns` (wall clock), or -1.
double newest_value_after(const SeamRun& seam, const std::string& rule, int64_t after_ns) {
  double value = -1;
  for (const nlohmann::json& a : seam.alerts(rule))
    if (std::stoll(a.value("time_ns", std::string("0"))) > after_ns) value = a["fields"].value("value", -1.0);
  return value;
}

TEST(Quantiles, WindowedP50AndP99AreWithinTwoPercentOfTheMeasuredCalls) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("q.seam",
                                "use cuda\n"
                                "metric sync_latency on cuda.stream_sync hist duration by pid\n"
                                "rule sync_p50\n"
                                "    when p50(sync_latency) over 1m > 1us\n"
                                "    alert info \"p50 {value}\"\n"
                                "rule sync_p99\n"
                                "    when p99(sync_latency) over 1m > 1us\n"
                                "    alert info \"p99 {value}\"\n"
                                "rule sync_count\n"
                                "    when count(sync_latency) over 1m > 0\n"
                                "    alert info \"{value} calls\"\n");
  std::string fixtures = SEAM_FIXTURE_DIR;
  std::string lib = fixtures + "/libcudart.so.12";
  std::string durations = dir.path() + "/durations.txt";
  Child caller({fixtures + "/timed_caller", lib, durations});
  ASSERT_TRUE(caller.wait_for_line("ready", 10s));
  std::string listen = "127.0.0.1:" + std::to_string(free_port());  // a pid-derived port was taken once
  SeamRun seam(dir.path(),
               {rules, "--pid", std::to_string(caller.pid()), "--alert-repeat", "1", "--listen", listen});
  ASSERT_TRUE(seam.wait_for_notice("attached", lib, 30s)) << seam.stderr_text();
  // 1,000 calls, each step of 200 µs .. 3 ms once.
  caller.send_line("run 1000 200 3000");
  ASSERT_TRUE(caller.wait_for_line("done", 60s));
  int64_t done = wall_ns();
  std::vector<uint64_t> truth = read_durations(durations);
  ASSERT_EQ(truth.size(), 1000u);

  // A state that holds is re-sent every second: wait for one evaluated two ticks after the calls.
  double p50 = -1, p99 = -1, calls = -1;
  EXPECT_TRUE(wait_until(
      [&] {
        p50 = newest_value_after(seam, "sync_p50", done + 2'000'000'000);
        p99 = newest_value_after(seam, "sync_p99", done + 2'000'000'000);
        calls = newest_value_after(seam, "sync_count", done + 2'000'000'000);
        return p50 > 0 && p99 > 0 && calls > 0;
      },
      15s))
      << seam.stderr_text();
  // The window holds every call, also those made before seam's first sample (the calls start as
  // soon as the library is attached): a window missing two of them once put p99 one value too high.
  EXPECT_EQ(calls, 1000);
  double exact50 = exact_quantile(truth, 0.5), exact99 = exact_quantile(truth, 0.99);
  EXPECT_NEAR(p50, exact50, exact50 * 0.02);
  EXPECT_NEAR(p99, exact99, exact99 * 0.02);

  // /metrics: the series with every bound of the fixed set, cumulative, and all 1,000 calls.
  std::string body = run_command({"curl", "-s", "http://" + listen + "/metrics"}).out;
  std::string series = "seam_sync_latency_seconds_bucket{pid=\"" + std::to_string(caller.pid()) + "\",le=\"";
  EXPECT_NE(body.find(series + "1.024e-06\"} 0\n"), std::string::npos) << body;  // the first bound
  EXPECT_NE(body.find(series + "68.719476736\"} 1000\n"), std::string::npos);    // 2^36 ns, the last
  EXPECT_NE(body.find(series + "+Inf\"} 1000\n"), std::string::npos);
  EXPECT_NE(body.find("seam_sync_latency_seconds_count{pid=\"" + std::to_string(caller.pid()) + "\"} 1000\n"),
            std::string::npos);
  size_t bounds = 0;
  for (size_t at = body.find(series); at != std::string::npos; at = body.find(series, at + 1)) ++bounds;
  EXPECT_EQ(bounds, 54u);  // 53 finite bounds and +Inf

  caller.send_line("quit");
  EXPECT_EQ(caller.wait(), 0);
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

}  // namespace
}  // namespace seam::test
