#include "runtime/metrics/metrics_engine.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "runtime/metrics/histogram.hpp"
#include "runtime/metrics/identity_labels.hpp"
#include "runtime/metrics/prometheus_writer.hpp"
#include "runtime/metrics/series_key.hpp"
#include "runtime/metrics/window_math.hpp"

namespace seam::runtime::metrics {

namespace {

constexpr int64_t kSpacingDivisor = 16;  // snapshots kept per shortest window (see SnapshotHistory)

// Prometheus wants base units: seconds for durations, bytes as they are. Dividing (not multiplying
// by 1e-9) gives the double nearest to the exact bound, so 2^30 ns prints as 1.073741824.
double base_unit_divisor(plan::FieldUnit unit) {
  return unit == plan::FieldUnit::Ns ? 1e9 : 1.0;
}

SeriesValues sum_over_cpus(const plan::Metric& metric, const PerCpuEntry& entry, uint32_t cpus) {
  size_t words = (metric.value_size + 7) / 8;
  std::vector<uint64_t> total(words, 0);
  for (uint32_t cpu = 0; cpu < cpus; ++cpu)
    for (size_t w = 0; w < words; ++w) total[w] += entry.values[cpu * words + w];
  SeriesValues values;
  if (words >= 1) values.count = total[0];
  if (words >= 2) values.sum = total[1];
  if (metric.kind == plan::MetricKind::Hist && words >= 2 + plan::kHistBuckets)
    values.buckets.assign(total.begin() + 2, total.begin() + 2 + plan::kHistBuckets);
  return values;
}

// The change since `old`; a series whose count went down was reset (a reload) and counts whole.
SeriesDelta delta_between(const SeriesValues& now, const SeriesValues* old, double seconds) {
  SeriesDelta d;
  d.seconds = seconds;
  bool reset = old && now.count < old->count;
  if (!old || reset) {
    d.count = now.count;
    d.sum = now.sum;
    d.buckets = now.buckets;
    return d;
  }
  d.count = now.count - old->count;
  d.sum = now.sum >= old->sum ? now.sum - old->sum : now.sum;
  d.buckets = now.buckets;
  for (size_t i = 0; i < d.buckets.size() && i < old->buckets.size(); ++i)
    d.buckets[i] = d.buckets[i] >= old->buckets[i] ? d.buckets[i] - old->buckets[i] : d.buckets[i];
  return d;
}

std::string sanitize_name(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
  return out;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Prometheus' naming convention: the base unit as a suffix, `_total` on counters.
std::string family_name(const plan::Metric& m) {
  std::string name = "seam_" + sanitize_name(m.name);
  std::string suffix = m.kind == plan::MetricKind::Count  ? "_total"
                       : m.unit == plan::FieldUnit::Ns    ? "_seconds"
                       : m.unit == plan::FieldUnit::Bytes ? "_bytes"
                                                          : "";
  if (!ends_with(name, suffix)) name += suffix;
  return name;
}

}  // namespace

MetricsEngine::MetricsEngine(const plan::Plan& plan, std::function<int(const std::string& map_name)> map_fd)
    : MetricsEngine(plan, bpf_map_reader(std::move(map_fd))) {}

MetricsEngine::MetricsEngine(const plan::Plan& plan, std::unique_ptr<MetricMapReader> reader)
    : windows_(plan.windows), enums_(plan.enums), reader_(std::move(reader)) {
  for (const plan::Metric& metric : plan.metrics) {
    int64_t longest = 0, shortest = 0;
    for (const plan::Window& w : plan.windows) {
      if (w.metric != metric.name || w.window_ns <= 0) continue;
      longest = std::max(longest, w.window_ns);
      shortest = shortest == 0 ? w.window_ns : std::min(shortest, w.window_ns);
    }
    uint64_t max_entries = metric.max_series + 1;  // the overflow series has a key of its own
    for (const plan::Map& map : plan.maps)
      if (map.name == metric.map) max_entries = map.max_entries;
    metrics_.push_back(
        MetricState{metric, max_entries, SnapshotHistory(longest, shortest / kSpacingDivisor), {}});
  }
}

void MetricsEngine::sample(int64_t now_ns) {
  // Read the maps outside the lock: the HTTP thread keeps serving the previous samples meanwhile.
  std::vector<Result<MapContents>> read;
  read.reserve(metrics_.size());
  for (const MetricState& state : metrics_) read.push_back(reader_->read(state.metric));

  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < metrics_.size(); ++i) {
    MetricState& state = metrics_[i];
    const plan::Metric& metric = state.metric;
    if (!read[i]) {
      ++read_errors_;
      last_error_ = read[i].error();
      continue;
    }
    size_t words = (metric.value_size + 7) / 8;
    auto series = std::make_shared<SeriesMap>();
    for (const PerCpuEntry& entry : read[i]->entries) {
      if (entry.values.size() < words * read[i]->cpus) continue;  // a reader bug: never guess
      (*series)[entry.key] = sum_over_cpus(metric, entry, read[i]->cpus);
    }
    state.latest.clear();
    std::map<std::pair<bool, Labels>, size_t> index;  // one series per identity (identity_labels.hpp)
    for (const auto& [key, values] : *series) {
      bool other = is_other_key(key);
      Labels labels = name_identity_labels(decode_labels(metric, key, enums_), identity_namer_, other);
      auto [at, fresh] = index.emplace(std::pair{other, labels}, state.latest.size());
      if (fresh) {
        state.latest.push_back(Series{std::move(labels), values.count, values.sum, values.buckets, other});
        continue;
      }
      Series& into = state.latest[at->second];
      add_values(values.count, values.sum, values.buckets, &into.count, &into.sum, &into.buckets);
    }
    std::stable_sort(state.latest.begin(), state.latest.end(), [](const Series& a, const Series& b) {
      return a.other != b.other ? b.other : a.labels < b.labels;
    });
    state.history.add(Snapshot{now_ns, std::move(series)});
  }
}

void MetricsEngine::count_from_empty_maps(int64_t now_ns) {
  std::lock_guard lock(mutex_);
  for (MetricState& state : metrics_) state.history.add(Snapshot{now_ns, std::make_shared<SeriesMap>()});
}

const std::vector<Series>& MetricsEngine::series(const std::string& metric) const {
  static const std::vector<Series> none;
  for (const MetricState& state : metrics_)
    if (state.metric.name == metric) return state.latest;
  return none;
}

std::vector<MetricsEngine::WindowResult> MetricsEngine::evaluate(int64_t now_ns) {
  std::lock_guard lock(mutex_);
  std::vector<WindowResult> results;
  for (const plan::Window& window : windows_) {
    auto state = std::find_if(metrics_.begin(), metrics_.end(),
                              [&](const MetricState& s) { return s.metric.name == window.metric; });
    if (state == metrics_.end()) continue;
    const Snapshot* newest = state->history.newest();
    if (!newest || now_ns - newest->time_ns > window.window_ns) continue;
    const Snapshot* base = state->history.baseline(now_ns - window.window_ns);
    if (!base) continue;
    double seconds = static_cast<double>(newest->time_ns - base->time_ns) / 1e9;
    // Per served series: the keys of one identity (identity_labels.hpp) change together.
    std::map<Labels, SeriesDelta> deltas;
    for (const auto& [key, values] : *newest->series) {
      auto old = base->series->find(key);
      SeriesDelta delta = delta_between(values, old == base->series->end() ? nullptr : &old->second, seconds);
      Labels labels =
          name_identity_labels(decode_labels(state->metric, key, enums_), identity_namer_, is_other_key(key));
      auto [at, fresh] = deltas.emplace(std::move(labels), delta);
      if (!fresh)
        add_values(delta.count, delta.sum, delta.buckets, &at->second.count, &at->second.sum,
                   &at->second.buckets);
    }
    for (const auto& [labels, delta] : deltas) {
      std::optional<double> value = window_value(window, delta);
      if (!value || !compare_holds(window.compare, *value, window.threshold)) continue;
      results.push_back(
          WindowResult{window.rule_id, *value, window_unit(window.function, state->metric.unit), labels});
    }
  }
  return results;
}

uint64_t MetricsEngine::read_errors() const {
  std::lock_guard lock(mutex_);
  return read_errors_;
}

std::string MetricsEngine::last_error() const {
  std::lock_guard lock(mutex_);
  return last_error_;
}

void MetricsEngine::write_metric(PrometheusWriter& out, const MetricState& state) const {
  const plan::Metric& m = state.metric;
  std::string name = family_name(m);
  std::string help = m.help.empty() ? "seam metric " + m.name + " (" + m.origin + ")" : m.help;
  double divisor = base_unit_divisor(m.unit);
  // The overflow series is served only once the cap was hit and it counted something.
  auto served = [](const Series& s) { return !s.other || s.count > 0; };
  switch (m.kind) {
    case plan::MetricKind::Count:
      out.family(name, "counter", help);
      for (const Series& s : state.latest)
        if (served(s)) out.sample(name, s.labels, s.count);
      return;
    case plan::MetricKind::Sum:
      out.family(name, "summary", help);
      for (const Series& s : state.latest) {
        if (!served(s)) continue;
        out.sample(name + "_sum", s.labels, static_cast<double>(s.sum) / divisor);
        out.sample(name + "_count", s.labels, s.count);
      }
      return;
    case plan::MetricKind::Hist:
      break;
  }
  // A fixed set of `le` bounds (histogram.hpp) from the first scrape on: rates over a range are
  // taken bucket by bucket, and a bound that appears later would skew histogram_quantile.
  const std::vector<uint64_t>& bounds = prometheus_bounds(m.unit);
  out.family(name, "histogram", help);
  for (const Series& s : state.latest) {
    if (!served(s)) continue;
    Labels labels = s.labels;
    labels.emplace_back("le", "");
    uint64_t cumulative = 0;
    size_t next = 0;
    for (uint64_t bound : bounds) {
      while (next < s.buckets.size() && plan::hist_bucket_upper(static_cast<uint32_t>(next)) <= bound)
        cumulative += s.buckets[next++];
      labels.back().second = format_number(static_cast<double>(bound) / divisor);
      out.sample(name + "_bucket", labels, cumulative);
    }
    // The kernel bumps count and bucket apart: never let +Inf fall below a finite bucket.
    uint64_t count = std::max(s.count, cumulative);
    labels.back().second = "+Inf";
    out.sample(name + "_bucket", labels, count);
    out.sample(name + "_sum", s.labels, static_cast<double>(s.sum) / divisor);
    out.sample(name + "_count", s.labels, count);
  }
}

void MetricsEngine::write_self(PrometheusWriter& out, const SelfStats& self) const {
  auto per_rule = [&](const std::string& name, const std::string& help, uint64_t RuleStats::*field) {
    if (self.rules.empty()) return;
    out.family(name, "counter", help);
    for (const RuleStats& r : self.rules) out.sample(name, {{"rule", r.rule}}, r.*field);
  };
  per_rule("seam_rule_records_total", "Records emitted by the rule's probes and read by seam.",
           &RuleStats::records);
  per_rule("seam_rule_dropped_total", "Records of the rule lost because the ring buffer was full.",
           &RuleStats::dropped);
  per_rule("seam_rule_alerts_total", "Alerts written for the rule.", &RuleStats::alerts);
  per_rule("seam_rule_suppressed_total", "Alerts of the rule held back by limits or grouping.",
           &RuleStats::suppressed);
  auto per_rule_gauge = [&](const std::string& name, const std::string& help, uint64_t RuleStats::*field) {
    if (self.rules.empty()) return;
    out.family(name, "gauge", help);
    for (const RuleStats& r : self.rules) out.sample(name, {{"rule", r.rule}}, r.*field);
  };
  per_rule_gauge("seam_rule_probes_attached", "Probes of the rule attached now.",
                 &RuleStats::probes_attached);
  per_rule_gauge("seam_rule_probes_failed", "Probes of the rule the kernel refused.",
                 &RuleStats::probes_failed);
  per_rule_gauge("seam_rule_probes_unavailable", "Probes of the rule whose kernel feature is missing here.",
                 &RuleStats::probes_unavailable);

  auto gauge = [&](const std::string& name, const std::string& help, double value) {
    out.family(name, "gauge", help);
    out.sample(name, {}, value);
  };
  gauge("seam_probes_attached", "Probes attached now.", static_cast<double>(self.probes_attached));
  gauge("seam_probes_failed", "Probes the kernel refused to attach.",
        static_cast<double>(self.probes_failed));
  gauge("seam_probes_unavailable", "Probes not attached because their kernel feature is missing here.",
        static_cast<double>(self.probes_unavailable));
  gauge("seam_library_files_attached", "Library files with probes attached.",
        static_cast<double>(self.library_files_attached));
  gauge("seam_processes_tracked", "Live processes mapping a library file that has probes.",
        static_cast<double>(self.processes_tracked));
  gauge("seam_compile_seconds", "Time to compile the rules.", self.compile_ms / 1e3);
  gauge("seam_load_seconds", "Time to load the BPF object.", self.load_ms / 1e3);
  gauge("seam_ringbuf_size_bytes", "Size of the ring buffer.", static_cast<double>(self.ringbuf_bytes));
  if (self.ringbuf_fill)
    gauge("seam_ringbuf_fill_ratio", "Ring buffer fill at the last look (0..1).", *self.ringbuf_fill);
  gauge("seam_open_fds", "File descriptors seam holds open.", static_cast<double>(self.open_fds));
  gauge("seam_max_fds", "seam's limit on open file descriptors (RLIMIT_NOFILE).",
        static_cast<double>(self.max_fds));
  gauge("seam_symbolizer_processes", "Processes whose mappings the stack symbolizer keeps.",
        static_cast<double>(self.symbolizer_processes));

  std::vector<MapFill> maps = self.maps;
  for (const MetricState& state : metrics_) {
    uint64_t entries = state.history.newest() ? state.history.newest()->series->size() : 0;
    maps.push_back(MapFill{state.metric.map, entries, state.max_entries, std::nullopt});
  }
  if (!maps.empty()) {
    out.family("seam_map_entries", "gauge", "Entries in the BPF map.");
    for (const MapFill& m : maps) out.sample("seam_map_entries", {{"map", m.map}}, m.entries);
    out.family("seam_map_max_entries", "gauge", "Capacity of the BPF map.");
    for (const MapFill& m : maps) out.sample("seam_map_max_entries", {{"map", m.map}}, m.max_entries);
  }
  bool evictions = std::any_of(maps.begin(), maps.end(), [](const MapFill& m) { return m.evictions; });
  if (evictions) {
    out.family("seam_map_evictions_total", "counter", "Entries evicted from the BPF map.");
    for (const MapFill& m : maps)
      if (m.evictions) out.sample("seam_map_evictions_total", {{"map", m.map}}, *m.evictions);
  }

  // Output counters, one family per counter name, in the order first seen.
  std::vector<std::string> names;
  for (const OutputCounter& c : self.outputs) {
    std::string name = "seam_output_" + sanitize_name(c.counter) + (c.gauge ? "" : "_total");
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    names.push_back(name);
    out.family(name, c.gauge ? "gauge" : "counter", "Output " + c.counter + ", per output.");
    for (const OutputCounter& d : self.outputs) {
      if ("seam_output_" + sanitize_name(d.counter) + (d.gauge ? "" : "_total") != name) continue;
      Labels labels{{"output", d.output}};
      if (!d.reason.empty()) labels.emplace_back("reason", d.reason);
      out.sample(name, labels, d.value);
    }
  }

  out.family("seam_rule_reload_errors_total", "counter",
             "Rule files that failed to check or compile on reload.");
  out.sample("seam_rule_reload_errors_total", {}, self.reload_errors);
  out.family("seam_rule_reloads_total", "counter", "Reloads that started, replaced or stopped rule files.");
  out.sample("seam_rule_reloads_total", {}, self.reloads);
  if (self.last_reload_s)
    gauge("seam_rule_last_reload_timestamp_seconds", "Unix time of the last such reload.",
          *self.last_reload_s);
  out.family("seam_metric_read_errors_total", "counter", "Failed reads of metric maps.");
  out.sample("seam_metric_read_errors_total", {}, read_errors_);
}

std::string MetricsEngine::prometheus_text(const SelfStats& self) const {
  std::lock_guard lock(mutex_);
  PrometheusWriter out;
  out.family("seam_build_info", "gauge", "seam's version; always 1.");
  out.sample("seam_build_info", {{"version", SEAM_VERSION}}, uint64_t{1});
  for (const MetricState& state : metrics_) write_metric(out, state);
  if (!metrics_.empty()) {
    out.family("seam_metric_overflow_total", "counter",
               "Updates folded into the metric's `other` series because its map was full.");
    for (const MetricState& state : metrics_) {
      uint64_t folded = 0;
      for (const Series& s : state.latest)
        if (s.other) folded += s.count;
      out.sample("seam_metric_overflow_total", {{"metric", state.metric.name}}, folded);
    }
  }
  write_self(out, self);
  return out.text();
}

}  // namespace seam::runtime::metrics
