// The Prometheus text format of rule metrics and seam's own health: exact text for a small
// example, and `promtool check metrics` on it where promtool is installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include "metrics_fake_reader.hpp"
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
    // pid 42: a 1 ns value on CPU 0, values 3 ns and 4 ns on CPU 1.
    m[latency.map].cpus = 2;
    m[latency.map].entries = {
        make_entry(latency, make_key(latency, {{"", 42}}), {{1, 1, {{0, 1}}}, {2, 7, {{2, 2}}}})};
    m[bytes.map].entries = {make_entry(bytes, make_key(bytes, {}), {{2, 3072, {}}})};
    engine = std::make_unique<MetricsEngine>(plan, std::make_unique<test::FakeReader>(maps));
    engine->sample(1'000'000'000);
  }
};

constexpr const char* kRuleMetrics = R"(# HELP seam_calls_total Calls to cudaMalloc.
# TYPE seam_calls_total counter
seam_calls_total{comm="a\"b\\c\nd"} 2
seam_calls_total{comm="other"} 3
# HELP seam_sync_latency Time in\ncudaStreamSynchronize \\ total
# TYPE seam_sync_latency histogram
seam_sync_latency_bucket{pid="42",le="1e-09"} 1
seam_sync_latency_bucket{pid="42",le="2e-09"} 1
seam_sync_latency_bucket{pid="42",le="4e-09"} 3
seam_sync_latency_bucket{pid="42",le="+Inf"} 3
seam_sync_latency_sum{pid="42"} 8e-09
seam_sync_latency_count{pid="42"} 3
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
  self.rules = {{"slow_sync", 10, 2, 8, 1}, {"big_alloc", 0, 0, 0, 0}};
  self.probes_attached = 12;
  self.probes_failed = 1;
  self.library_files_attached = 3;
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
           "seam_library_files_attached 3\n",
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

TEST(PrometheusText, HistogramBucketsStopAtTheHighestUsedAndConvertBytes) {
  plan::Plan plan;
  plan.metrics = {make_metric("alloc", plan::MetricKind::Hist, plan::FieldUnit::Bytes, {})};
  plan.metrics[0].help = "Allocation sizes.";
  auto maps = std::make_shared<test::FakeMaps>();
  const plan::Metric& m = plan.metrics[0];
  maps->maps[m.map].entries = {make_entry(m, make_key(m, {}), {{2, 3 << 20, {{20, 1}, {21, 1}}}})};
  MetricsEngine engine(plan, std::make_unique<test::FakeReader>(maps));
  engine.sample(0);
  std::string text = engine.prometheus_text({});
  EXPECT_NE(text.find("seam_alloc_bucket{le=\"1\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("seam_alloc_bucket{le=\"1048576\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("seam_alloc_bucket{le=\"2097152\"} 2\n"), std::string::npos);
  EXPECT_EQ(text.find("le=\"4194304\""), std::string::npos);
  EXPECT_NE(text.find("seam_alloc_bucket{le=\"+Inf\"} 2\nseam_alloc_sum 3145728\nseam_alloc_count 2\n"),
            std::string::npos);
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
