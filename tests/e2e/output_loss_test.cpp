// A slow output's losses are never silent. A stdout nobody reads fills its queue in a flood of
// alerts: what it drops is told as `output-drops` notices (in the JSON file beside it and on
// stderr) whose counts add up to what /metrics counts; and every call is accounted for by the
// JSON file alone: an alert, a ring drop or a loss of the file's own queue, each told there.
#include <gtest/gtest.h>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/stalled_stdout.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

// The counts of the notices of `kind` (about `output`, when given) in seam's JSON file.
long long told(const SeamRun& seam, const std::string& kind, const std::string& output = {}) {
  long long sum = 0;
  for (const auto& n : seam.notices(kind))
    if (output.empty() || n.value("output", "") == output) sum += n.value("count", 0LL);
  return sum;
}

TEST(OutputLoss, AStalledOutputsLossesAreToldWithTheirCount) {
  SEAM_REQUIRE_ROOT();
  StalledStdoutFlood flood;
  std::string why;
  ASSERT_TRUE(flood.start(&why)) << why;
  const SeamRun& seam = *flood.seam;
  constexpr long kCalls = StalledStdoutFlood::kCalls;

  // The JSON file accounts for every call, from what it holds alone.
  const std::string file = "json:" + seam.output_path();
  long long alerts = 0, ring = 0, own = 0;
  EXPECT_TRUE(wait_until(
      [&] {
        alerts = static_cast<long long>(of_pid(seam.alerts("every_sync"), flood.caller->pid()).size());
        ring = told(seam, "drops");
        own = told(seam, "output-drops", file);
        return alerts + ring + own == kCalls;
      },
      60s))
      << alerts << " alerts, " << ring << " ring drops and " << own << " of its own told, of " << kCalls;

  // Stdout's losses: counted on /metrics once the flood is over, and told (perhaps a little more
  // since: each notice stdout's full queue drops is a loss too).
  const std::string series = "seam_output_dropped_total{output=\"stdout\",reason=\"queue_full\"}";
  std::string body;
  long long counted = 0;
  ASSERT_TRUE(wait_until(
      [&] {
        body = http_get("http://" + flood.listen + "/metrics");
        counted = metric_sample(body, series);
        return counted > 0;
      },
      30s))
      << body;
  EXPECT_TRUE(wait_until([&] { return told(seam, "output-drops", "stdout") >= counted; }, 30s))
      << told(seam, "output-drops", "stdout") << " told of " << counted << " counted";
  long long told_stdout = told(seam, "output-drops", "stdout");
  EXPECT_TRUE(wait_until(
      [&] { return metric_sample(http_get("http://" + flood.listen + "/metrics"), series) >= told_stdout; },
      10s))
      << "more told (" << told_stdout << ") than counted";
  EXPECT_NE(seam.stderr_text().find("output stdout: "), std::string::npos) << seam.stderr_text();
  EXPECT_EQ(flood.seam->stop(), 0) << seam.stderr_text();
}

}  // namespace
}  // namespace seam::test
