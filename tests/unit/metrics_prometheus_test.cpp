// The Prometheus text format of rule metrics and seam's own health: exact text for a small
// example, and `promtool check metrics` on it where promtool is installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <set>
#include "metrics_fake_reader.hpp"

#include "runtime/metrics/histogram.hpp"
#include "runtime/metrics/metrics_engine.hpp"
#include "runtime/metrics/prometheus_writer.hpp"
#include "support/test_support.hpp"

namespace seam::runtime::metrics {
namespace {

using test::make_entry;
using test::make_key;
using test::make_metric;

struct Example {
  plan::Plan plan;
  std::shared_ptr<test::FakeMaps> maps = std::make_shared<test::FakeMaps>();
  std::unique_ptr<MetricsEngine> engine;

  Example() {
    plan::Metric calls = make_metric("calls", plan::MetricKind::Count, plan::FieldUnit::None, {"comm"});
    calls.help = "Calls to cudaMalloc.";
    plan::Metric latency = make_metric("sync_latency", plan::MetricKind::Hist, plan::FieldUnit::Ns, {"pid"});
    latency.help = "Time in\ncudaStreamSynchronize \\ total";
    plan::Metric bytes = make_metric("bytes", plan::MetricKind::Sum, plan::FieldUnit::Bytes, {});
    bytes.origin = "rules/a.seam:3";
    plan.metrics = {calls, latency, bytes};
    auto& m = maps->maps;
    m[calls.map].cpus = 2;
    m[calls.map].entries = {make_entry(calls, make_key(calls, {{"a\"b\\c\nd"}}), {{1, 0, {}}, {1, 0, {}}}),
                            make_entry(calls, make_key(calls, {}, true), {{3, 0, {}}, {0, 0, {}}})};
    // pid 42: a 1 ns value on CPU 0, values 3 ns and 4 ns on CPU 1 (exact buckets 0, 2, 3).
    m[latency.map].cpus = 2;
    m[latency.map].entries = {
        make_entry(latency, make_key(latency, {{"", 42}}), {{1, 1, {{0, 1}}}, {2, 7, {{2, 1}, {3, 1}}}})};
    m[bytes.map].entries = {make_entry(bytes, make_key(bytes, {}), {{2, 3072, {}}})};
    engine = std::make_unique<MetricsEngine>(plan, std::make_unique<test::FakeReader>(maps));
    engine->sample(1'000'000'000);
  }
};

// Every bound of the fixed set for durations: the values 1, 3 and 4 ns are below the first.
std::string latency_buckets() {
  std::string out;
  for (uint64_t bound : prometheus_bounds(plan::FieldUnit::Ns))
    out += "seam_sync_latency_seconds_bucket{pid=\"42\",le=\"" +
           format_number(static_cast<double>(bound) / 1e9) + "\"} 3\n";
  return out;
}

const std::string kRuleMetrics = std::string(R"(# HELP seam_build_info seam's version; always 1.
# TYPE seam_build_info gauge
seam_build_info{version=")") + SEAM_TEST_VERSION +
                                 R"("} 1
# HELP seam_calls_total Calls to cudaMalloc.
# TYPE seam_calls_total counter
seam_calls_total{comm="a\"b\\c\nd"} 2
seam_calls_total{comm="other"} 3
# HELP seam_sync_latency_seconds Time in\ncudaStreamSynchronize \\ total
# TYPE seam_sync_latency_seconds histogram
)" + latency_buckets() + R"(seam_sync_latency_seconds_bucket{pid="42",le="+Inf"} 3
seam_sync_latency_seconds_sum{pid="42"} 8e-09
seam_sync_latency_seconds_count{pid="42"} 3
# HELP seam_bytes seam metric bytes (rules/a.seam:3)
# TYPE seam_bytes summary
seam_bytes_sum 3072
seam_bytes_count 2
# HELP seam_metric_overflow_total Updates folded into the metric's `other` series because its map was full.
# TYPE seam_metric_overflow_total counter
seam_metric_overflow_total{metric="calls"} 3
seam_metric_overflow_total{metric="sync_latency"} 0
seam_metric_overflow_total{metric="bytes"} 0
)";

SelfStats some_self_stats() {
  SelfStats self;
  self.rules = {{"slow_sync", 10, 2, 8, 1, 4, 1, 0}, {"big_alloc", 0, 0, 0, 0, 0, 0, 2}};
  self.probes_attached = 12;
  self.probes_failed = 1;
  self.probes_unavailable = 2;
  self.library_files_attached = 3;
  self.processes_tracked = 5;
  self.compile_ms = 1500;
  self.load_ms = 25;
  self.ringbuf_bytes = 4194304;
  self.ringbuf_fill = 0.25;
  self.maps = {{"span_stream_sync", 5, 10240, 0}};
  self.outputs = {{"ops", "delivered", 7, false, ""},
                  {"ops", "spool_bytes", 512, true, ""},
                  {"ops", "dropped", 2, false, "queue_full"},
                  {"log", "delivered", 9, false, ""}};
  self.reload_errors = 1;
  self.reloads = 2;
  self.last_reload_s = 1764500000;
  return self;
}

TEST(PrometheusText, RuleMetricsExactly) {
  Example e;
  std::string text = e.engine->prometheus_text({});
  EXPECT_EQ(text.substr(0, text.find("# HELP seam_probes_attached")), kRuleMetrics);
}

TEST(PrometheusText, SelfMetrics) {
  Example e;
  std::string text = e.engine->prometheus_text(some_self_stats());
  for (const char* line : {
           "# TYPE seam_rule_records_total counter\n",
           "seam_rule_records_total{rule=\"slow_sync\"} 10\n",
           "seam_rule_dropped_total{rule=\"slow_sync\"} 2\n",
           "seam_rule_alerts_total{rule=\"slow_sync\"} 8\n",
           "seam_rule_suppressed_total{rule=\"slow_sync\"} 1\n",
           "seam_rule_suppressed_total{rule=\"big_alloc\"} 0\n",
           "# TYPE seam_probes_attached gauge\nseam_probes_attached 12\n",
           "seam_probes_failed 1\n",
           "seam_probes_unavailable 2\n",
           "seam_library_files_attached 3\n",
           "seam_processes_tracked 5\n",
           "# TYPE seam_rule_probes_attached gauge\nseam_rule_probes_attached{rule=\"slow_sync\"} 4\n",
           "seam_rule_probes_failed{rule=\"slow_sync\"} 1\n",
           "seam_rule_probes_unavailable{rule=\"big_alloc\"} 2\n",
           "seam_compile_seconds 1.5\n",
           "seam_load_seconds 0.025\n",
           "seam_ringbuf_size_bytes 4194304\n",
           "seam_ringbuf_fill_ratio 0.25\n",
           "seam_map_entries{map=\"span_stream_sync\"} 5\n",
           "seam_map_entries{map=\"seam_metric_calls\"} 2\n",  // counted while reading
           "seam_map_max_entries{map=\"seam_metric_calls\"} 1025\n",
           "seam_map_evictions_total{map=\"span_stream_sync\"} 0\n",
           "# TYPE seam_output_delivered_total counter\n"
           "seam_output_delivered_total{output=\"ops\"} 7\n"
           "seam_output_delivered_total{output=\"log\"} 9\n",
           "# TYPE seam_output_spool_bytes gauge\nseam_output_spool_bytes{output=\"ops\"} 512\n",
           "seam_output_dropped_total{output=\"ops\",reason=\"queue_full\"} 2\n",
           "seam_rule_reload_errors_total 1\n",
           "seam_rule_reloads_total 2\n",
           "seam_rule_last_reload_timestamp_seconds 1764500000\n",
           "seam_metric_read_errors_total 0\n",
       })
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nnot in:\n" << text;
  // Each family is declared once.
  EXPECT_EQ(text.find("# TYPE seam_output_delivered_total"),
            text.rfind("# TYPE seam_output_delivered_total"));
}

TEST(PrometheusText, HistogramsServeTheFixedBoundsInBytes) {
  plan::Plan plan;
  plan.metrics = {make_metric("alloc", plan::MetricKind::Hist, plan::FieldUnit::Bytes, {})};
  plan.metrics[0].help = "Allocation sizes.";
  auto maps = std::make_shared<test::FakeMaps>();
  const plan::Metric& m = plan.metrics[0];
  // 1 MiB and 2 MiB: the upper bounds of their buckets.
  maps->maps[m.map].entries = {
      make_entry(m, make_key(m, {}),
                 {{2, 3 << 20, {{plan::hist_bucket_of(1 << 20), 1}, {plan::hist_bucket_of(2 << 20), 1}}}})};
  MetricsEngine engine(plan, std::make_unique<test::FakeReader>(maps));
  engine.sample(0);
  std::string text = engine.prometheus_text({});
  EXPECT_NE(text.find("# TYPE seam_alloc_bytes histogram\n"), std::string::npos) << text;
  EXPECT_NE(text.find("seam_alloc_bytes_bucket{le=\"1\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("seam_alloc_bytes_bucket{le=\"786432\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("seam_alloc_bytes_bucket{le=\"1048576\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("seam_alloc_bytes_bucket{le=\"1572864\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("seam_alloc_bytes_bucket{le=\"2097152\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("seam_alloc_bytes_bucket{le=\"68719476736\"} 2\n"),
            std::string::npos);  // the last bound
  EXPECT_NE(text.find("seam_alloc_bytes_bucket{le=\"+Inf\"} 2\nseam_alloc_bytes_sum 3145728\n"
                      "seam_alloc_bytes_count 2\n"),
            std::string::npos);
}

TEST(PrometheusText, TheSameBoundsBeforeAnyValue) {
  plan::Plan plan;
  plan.metrics = {make_metric("lat", plan::MetricKind::Hist, plan::FieldUnit::Ns, {})};
  auto maps = std::make_shared<test::FakeMaps>();
  const plan::Metric& m = plan.metrics[0];
  maps->maps[m.map].entries = {make_entry(m, make_key(m, {}), {{0, 0, {}}})};
  MetricsEngine engine(plan, std::make_unique<test::FakeReader>(maps));
  engine.sample(0);
  std::string text = engine.prometheus_text({});
  size_t lines = 0;
  for (size_t at = text.find("seam_lat_seconds_bucket{"); at != std::string::npos;
       at = text.find("seam_lat_seconds_bucket{", at + 1))
    ++lines;
  EXPECT_EQ(lines, prometheus_bounds(plan::FieldUnit::Ns).size() + 1);
}

// The overflow series only once the cap was hit: an empty one is never served, so a metric
// without `by` has one series, not a second one with the same (empty) labels.
TEST(PrometheusText, NoEmptyOverflowSeriesAndNoDuplicates) {
  plan::Plan plan;
  plan.metrics = {make_metric("calls", plan::MetricKind::Count, plan::FieldUnit::None, {})};
  auto maps = std::make_shared<test::FakeMaps>();
  const plan::Metric& m = plan.metrics[0];
  maps->maps[m.map].entries = {make_entry(m, make_key(m, {}), {{5, 0, {}}}),
                               make_entry(m, make_key(m, {}, true), {{0, 0, {}}})};
  MetricsEngine engine(plan, std::make_unique<test::FakeReader>(maps));
  engine.sample(0);
  std::string text = engine.prometheus_text({});
  EXPECT_NE(text.find("seam_calls_total 5\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("seam_calls_total 0\n"), std::string::npos) << text;
  std::set<std::string> series;
  for (size_t begin = 0, end; begin < text.size(); begin = end + 1) {
    end = text.find('\n', begin);
    std::string line = text.substr(begin, end - begin);
    if (line.empty() || line[0] == '#') continue;
    EXPECT_TRUE(series.insert(line.substr(0, line.rfind(' '))).second) << "duplicate series: " << line;
  }
}

TEST(PrometheusText, EnumLabelsByName) {
  plan::Plan plan;
  plan.metrics = {make_metric("copies", plan::MetricKind::Count, plan::FieldUnit::None, {"kind"})};
  plan.metrics[0].labels[0].enum_name = "cudaMemcpyKind";
  plan.enums["cudaMemcpyKind"] = {{1, "cudaMemcpyHostToDevice"}};
  auto maps = std::make_shared<test::FakeMaps>();
  const plan::Metric& m = plan.metrics[0];
  maps->maps[m.map].entries = {make_entry(m, make_key(m, {{"", 1}}), {{2, 0, {}}}),
                               make_entry(m, make_key(m, {{"", 9}}), {{1, 0, {}}})};
  MetricsEngine engine(plan, std::make_unique<test::FakeReader>(maps));
  engine.sample(0);
  std::string text = engine.prometheus_text({});
  EXPECT_NE(text.find("seam_copies_total{kind=\"cudaMemcpyHostToDevice\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("seam_copies_total{kind=\"9\"} 1\n"), std::string::npos);  // no name: the number
}

TEST(PrometheusText, NumbersAndEscapes) {
  EXPECT_EQ(format_number(1.073741824), "1.073741824");
  EXPECT_EQ(format_number(0.5), "0.5");
  EXPECT_EQ(format_number(1.0 / 0.0), "+Inf");
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(escape_help("x\\y\nz\""), "x\\\\y\\nz\"");
}

TEST(PrometheusText, PromtoolAcceptsIt) {
  const char* promtool = "/usr/bin/promtool";
  if (access(promtool, X_OK) != 0) {
    if (seam::test::in_ci()) FAIL() << promtool << " is missing: scripts/setup-deps.sh installs it";
    GTEST_SKIP() << "needs promtool (package prometheus)";
  }
  Example e;
  std::string text = e.engine->prometheus_text(some_self_stats());
  auto result = seam::test::run_command({promtool, "check", "metrics"}, text);
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err << "\n" << text;
}

}  // namespace
}  // namespace seam::runtime::metrics
