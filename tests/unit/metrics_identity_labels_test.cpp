// Metrics `by container` (and pod, namespace): the kernel keys series by cgroup id; the engine
// serves each as its cgroup's identity, one series per identity, in /metrics and windowed rules.
#include <gtest/gtest.h>

#include "metrics_fake_reader.hpp"
#include "runtime/metrics/metrics_engine.hpp"

namespace seam::runtime::metrics {
namespace {

using test::make_entry;
using test::make_key;
using test::make_metric;

constexpr int64_t kSecond = 1'000'000'000;

// cgroups 11 and 12 are one container (nested cgroups), 13 another, 14 none.
std::string container_of(const std::string& label, uint64_t cgroup) {
  if (label != "container") return "?";
  return cgroup == 11 || cgroup == 12 ? "3f4e5d6c7b8a" : cgroup == 13 ? "0123456789ab" : "";
}

TEST(MetricsIdentityLabels, CgroupsOfOneContainerAreOneSeries) {
  plan::Plan plan;
  plan.metrics.push_back(make_metric("syncs", plan::MetricKind::Count, plan::FieldUnit::None, {"container"}));
  plan.windows.push_back(
      plan::Window{3, plan::WindowFunction::Count, 0, "syncs", 10 * kSecond, plan::Compare::Gt, 4});
  auto maps = std::make_shared<test::FakeMaps>();
  MetricsEngine engine(plan, std::make_unique<test::FakeReader>(maps));
  engine.set_identity_namer(container_of);
  const plan::Metric& m = plan.metrics[0];
  MapContents& map = maps->maps[m.map];
  map.cpus = 1;
  engine.sample(0);  // the empty baseline
  map.entries = {make_entry(m, make_key(m, {{"", 11}}), {{2, 0, {}}}),
                 make_entry(m, make_key(m, {{"", 12}}), {{3, 0, {}}}),
                 make_entry(m, make_key(m, {{"", 13}}), {{4, 0, {}}}),
                 make_entry(m, make_key(m, {{"", 14}}), {{1, 0, {}}})};
  engine.sample(5 * kSecond);

  const std::vector<Series>& series = engine.series("syncs");
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[0].labels, (Labels{{"container", ""}}));
  EXPECT_EQ(series[0].count, 1u);
  EXPECT_EQ(series[1].labels, (Labels{{"container", "0123456789ab"}}));
  EXPECT_EQ(series[1].count, 4u);
  EXPECT_EQ(series[2].labels, (Labels{{"container", "3f4e5d6c7b8a"}}));
  EXPECT_EQ(series[2].count, 5u);

  std::string text = engine.prometheus_text({});
  EXPECT_NE(text.find("seam_syncs_total{container=\"\"} 1\n"
                      "seam_syncs_total{container=\"0123456789ab\"} 4\n"
                      "seam_syncs_total{container=\"3f4e5d6c7b8a\"} 5\n"),
            std::string::npos)
      << text;

  // The windowed rule sees the container's calls together: 2 + 3 > 4, while no cgroup alone is.
  auto results = engine.evaluate(5 * kSecond);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].rule_id, 3u);
  EXPECT_DOUBLE_EQ(results[0].value, 5);
  EXPECT_EQ(results[0].labels, (Labels{{"container", "3f4e5d6c7b8a"}}));
}

TEST(MetricsIdentityLabels, WithoutANamerTheCgroupIdIsServed) {
  plan::Plan plan;
  plan.metrics.push_back(make_metric("syncs", plan::MetricKind::Count, plan::FieldUnit::None, {"pod"}));
  auto maps = std::make_shared<test::FakeMaps>();
  MetricsEngine engine(plan, std::make_unique<test::FakeReader>(maps));
  const plan::Metric& m = plan.metrics[0];
  maps->maps[m.map].cpus = 1;
  maps->maps[m.map].entries = {make_entry(m, make_key(m, {{"", 11}}), {{2, 0, {}}})};
  engine.sample(0);
  ASSERT_EQ(engine.series("syncs").size(), 1u);
  EXPECT_EQ(engine.series("syncs")[0].labels, (Labels{{"pod", "11"}}));
}

}  // namespace
}  // namespace seam::runtime::metrics
