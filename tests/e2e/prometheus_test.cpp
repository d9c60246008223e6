// seam's metrics read from real BPF per-CPU hash maps and scraped by a real Prometheus (Debian's
// prometheus) on loopback: the series summed over CPUs, then PromQL through Prometheus' own HTTP
// API returns the expected count and histogram bucket, also after the maps change. Skipped only
// where root or the binary is missing outside CI (scripts/setup-deps.sh installs it).
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "runtime/metrics/http_server.hpp"
#include "runtime/metrics/map_fill.hpp"
#include "runtime/metrics/metrics_engine.hpp"
#include "support/e2e_helpers.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;
namespace metrics = runtime::metrics;

constexpr const char* kPrometheus = "/usr/bin/prometheus";

std::string url_encode(const std::string& text) {
  CURL* c = curl_easy_init();
  char* escaped = curl_easy_escape(c, text.c_str(), static_cast<int>(text.size()));
  std::string out = escaped;
  curl_free(escaped);
  curl_easy_cleanup(c);
  return out;
}

// Prometheus scraping one target every second, with temp storage, on a free loopback port.
class Prometheus {
 public:
  Prometheus(const TempDir& dir, uint16_t target_port)
      : server_(
            kPrometheus,
            [&](int port) {
              std::string config = dir.write("prometheus.yml",
                                             "global:\n  scrape_interval: 1s\n"
                                             "scrape_configs:\n  - job_name: seam\n"
                                             "    static_configs:\n      - targets: ['127.0.0.1:" +
                                                 std::to_string(target_port) + "']\n");
              std::filesystem::create_directories(dir.path() + "/tsdb");
              return std::vector<std::string>{"--config.file=" + config,
                                              "--storage.tsdb.path=" + dir.path() + "/tsdb",
                                              "--web.listen-address=127.0.0.1:" + std::to_string(port)};
            },
            dir.path() + "/prometheus.log", 15s) {}
  bool wait_ready() const { return server_.wait_ready("/-/ready", 60s); }
  // The value of an instant PromQL query with one result, nullopt while it has none.
  std::optional<std::string> query(const std::string& promql) const {
    auto answer =
        nlohmann::json::parse(http_get(url("/api/v1/query?query=" + url_encode(promql))), nullptr, false);
    if (!answer.is_object() || answer.value("status", "") != "success") return std::nullopt;
    const auto& result = answer["data"]["result"];
    if (!result.is_array() || result.size() != 1) return std::nullopt;
    return result[0]["value"][1].get<std::string>();
  }
  // Waits until `promql` returns `expected`; the last value seen otherwise.
  std::string wait_for(const std::string& promql, const std::string& expected) const {
    std::string last = "(none)";
    wait_until(
        [&] {
          auto v = query(promql);
          if (v) last = *v;
          return v == expected;
        },
        30s);
    return last;
  }
  std::string log() const { return server_.log(); }

 private:
  std::string url(const std::string& path) const { return server_.url(path); }
  LoopbackServer server_;
};

// A real BPF_MAP_TYPE_PERCPU_HASH laid out like a metric map, filled from user space.
class MetricMap {
 public:
  explicit MetricMap(const plan::Metric& m) : metric_(m) {
    fd_ = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, m.map.c_str(), m.key_size, m.value_size, m.max_series + 1,
                         nullptr);
    cpus_ = libbpf_num_possible_cpus();
  }
  ~MetricMap() {
    if (fd_ >= 0) close(fd_);
  }
  int fd() const { return fd_; }
  int cpus() const { return cpus_; }
  // Sets the series `comm` (or the overflow series) to per-CPU {count, sum, bucket -> n} values.
  bool set(const std::string& comm, bool other,
           const std::vector<std::pair<int, std::tuple<uint64_t, uint64_t, int, uint64_t>>>& per_cpu) {
    std::string key(metric_.key_size, '\0');
    uint32_t flag = other ? 1 : 0;
    std::memcpy(key.data(), &flag, 4);
    if (!other) std::memcpy(key.data() + 8, comm.data(), std::min<size_t>(comm.size(), 16));
    size_t words = metric_.value_size / 8;
    std::vector<uint64_t> values(words * static_cast<size_t>(cpus_), 0);
    for (const auto& [cpu, v] : per_cpu) {
      auto [count, sum, bucket, n] = v;
      values[cpu * words] += count;  // += : on a one-CPU machine CPU 0 is also the last CPU
      values[cpu * words + 1] += sum;
      if (metric_.kind == plan::MetricKind::Hist) values[cpu * words + 2 + bucket] += n;
    }
    return bpf_map_update_elem(fd_, key.data(), values.data(), BPF_ANY) == 0;
  }

 private:
  plan::Metric metric_;
  int fd_ = -1;
  int cpus_ = 0;
};

plan::Metric comm_metric(const std::string& name, plan::MetricKind kind) {
  plan::Metric m;
  m.name = name;
  m.map = "seam_m_" + name.substr(0, 8);
  m.kind = kind;
  m.unit = kind == plan::MetricKind::Hist ? plan::FieldUnit::Ns : plan::FieldUnit::None;
  m.labels = {{"comm", plan::FieldType::Str, 8, 16, ""}};
  m.key_size = 24;
  m.value_size = kind == plan::MetricKind::Hist ? 16 + 8 * plan::kHistBuckets : 16;
  m.max_series = 16;
  m.help = "e2e " + name;
  return m;
}

int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

TEST(Prometheus, ScrapesSeriesReadFromRealPerCpuMaps) {
  SEAM_REQUIRE_ROOT();
  if (access(kPrometheus, X_OK) != 0) {
    if (in_ci()) FAIL() << kPrometheus << " is missing: scripts/setup-deps.sh installs it";
    GTEST_SKIP() << "needs " << kPrometheus << " (package prometheus)";
  }
  plan::Plan plan;
  plan.metrics = {comm_metric("e2e_calls", plan::MetricKind::Count),
                  comm_metric("e2e_latency", plan::MetricKind::Hist)};
  MetricMap calls(plan.metrics[0]), latency(plan.metrics[1]);
  ASSERT_GE(calls.fd(), 0) << std::strerror(errno);
  ASSERT_GE(latency.fd(), 0) << std::strerror(errno);
  int last = calls.cpus() - 1;
  // trainer: 3 calls on CPU 0 and 4 on the last CPU; 5 latencies of 1 ms (2^19 < 1e6 <= 2^20 ns).
  const int ms1 = static_cast<int>(plan::hist_bucket_of(1'000'000)),
            ms2 = static_cast<int>(plan::hist_bucket_of(2'000'000));
  ASSERT_TRUE(calls.set("trainer", false, {{0, {3, 0, 0, 0}}, {last, {4, 0, 0, 0}}}));
  ASSERT_TRUE(calls.set("", true, {{last, {2, 0, 0, 0}}}));
  ASSERT_TRUE(latency.set("trainer", false, {{0, {2, 2000000, ms1, 2}}, {last, {3, 2900000, ms1, 3}}}));

  metrics::MetricsEngine engine(plan, [&](const std::string& map) {
    return map == plan.metrics[0].map ? calls.fd() : map == plan.metrics[1].map ? latency.fd() : -1;
  });
  engine.sample(monotonic_ns());
  ASSERT_EQ(engine.read_errors(), 0u) << engine.last_error();
  const auto& call_series = engine.series("e2e_calls");
  ASSERT_EQ(call_series.size(), 2u);
  EXPECT_EQ(call_series[0].labels, (metrics::Labels{{"comm", "trainer"}}));
  EXPECT_EQ(call_series[0].count, 7u);
  EXPECT_TRUE(call_series[1].other);
  EXPECT_EQ(call_series[1].count, 2u);
  const auto& latency_series = engine.series("e2e_latency");
  ASSERT_EQ(latency_series.size(), 1u);
  EXPECT_EQ(latency_series[0].count, 5u);
  EXPECT_EQ(latency_series[0].sum, 4900000u);
  EXPECT_EQ(latency_series[0].buckets[ms1], 5u);

  Result<uint64_t> calls_entries = metrics::count_hash_entries(calls.fd(), 24, 17);
  ASSERT_TRUE(calls_entries) << calls_entries.error();
  EXPECT_EQ(*calls_entries, 2u);
  Result<uint64_t> latency_entries = metrics::count_hash_entries(latency.fd(), 24, 17);
  ASSERT_TRUE(latency_entries) << latency_entries.error();
  EXPECT_EQ(*latency_entries, 1u);
  Result<uint64_t> no_map = metrics::count_hash_entries(-1, 24, 17);
  ASSERT_FALSE(no_map);
  EXPECT_EQ(no_map.error(), "bpf_map_get_next_key: Bad file descriptor");

  metrics::HttpServer server;
  Result<void> started = server.start("127.0.0.1:0", [&] { return engine.prometheus_text({}); });
  ASSERT_TRUE(started) << started.error();
  TempDir dir;
  Prometheus prometheus(dir, server.port());
  ASSERT_TRUE(prometheus.wait_ready()) << prometheus.log();

  EXPECT_EQ(prometheus.wait_for("seam_e2e_calls_total{comm=\"trainer\"}", "7"), "7") << prometheus.log();
  EXPECT_EQ(prometheus.wait_for("seam_metric_overflow_total{metric=\"e2e_calls\"}", "2"), "2");
  // 2^20 ns = 0.001048576 s: every latency is at or below it, none at or below 2^19 ns.
  EXPECT_EQ(prometheus.wait_for("seam_e2e_latency_seconds_bucket{comm=\"trainer\",le=\"0.001048576\"}", "5"),
            "5");
  EXPECT_EQ(prometheus.wait_for("seam_e2e_latency_seconds_bucket{comm=\"trainer\",le=\"0.000524288\"}", "0"),
            "0");
  EXPECT_EQ(prometheus.wait_for("seam_e2e_latency_seconds_sum{comm=\"trainer\"}", "0.0049"), "0.0049");

  // More work lands in the maps: the next scrape after the next sample shows it.
  ASSERT_TRUE(calls.set("trainer", false, {{0, {30, 0, 0, 0}}, {last, {12, 0, 0, 0}}}));
  // The last CPU's values are replaced: one 2 ms latency (<= 2^21 ns); CPU 0 keeps its two.
  ASSERT_TRUE(latency.set("trainer", false, {{0, {2, 2000000, ms1, 2}}, {last, {1, 2000000, ms2, 1}}}));
  engine.sample(monotonic_ns());
  EXPECT_EQ(prometheus.wait_for("seam_e2e_calls_total{comm=\"trainer\"}", "42"), "42");
  EXPECT_EQ(prometheus.wait_for("seam_e2e_latency_seconds_bucket{comm=\"trainer\",le=\"0.001048576\"}", "2"),
            "2");
  EXPECT_EQ(prometheus.wait_for("seam_e2e_latency_seconds_bucket{comm=\"trainer\",le=\"0.002097152\"}", "3"),
            "3");
  EXPECT_EQ(prometheus.wait_for("seam_e2e_latency_seconds_count{comm=\"trainer\"}", "3"), "3");
  EXPECT_GT(server.requests(), 0u);
}

}  // namespace
}  // namespace seam::test
