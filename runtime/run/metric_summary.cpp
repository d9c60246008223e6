#include "runtime/run/metric_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "compiler/plan/hist_layout.hpp"
#include "runtime/metrics/histogram.hpp"
#include "runtime/metrics/window_math.hpp"

namespace seam::runtime {

namespace {

constexpr int kBarWidth = 40;

std::string number_text(double v) {
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string labels_text(const metrics::Labels& labels) {
  if (labels.empty()) return "(all)";
  std::string out;
  for (const auto& [k, v] : labels) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

const char* kind_text(plan::MetricKind k) {
  switch (k) {
    case plan::MetricKind::Count:
      return "count";
    case plan::MetricKind::Sum:
      return "sum";
    case plan::MetricKind::Hist:
      return "hist";
  }
  return "?";
}

// The terminal shows one bar per power of two, as bpftrace does: the log-linear buckets
// (plan/hist_layout.hpp) are summed into rows (2^(k-1), 2^k], row 0 being [0, 1].
size_t row_of(uint32_t bucket) {
  uint64_t upper = plan::hist_bucket_upper(bucket);
  return upper <= 1 ? 0 : 64 - static_cast<size_t>(__builtin_clzll(upper - 1));
}

std::string row_text(size_t k, plan::FieldUnit unit) {
  if (k == 0) return "[0, " + unit_text(1, unit) + "]";
  return "(" + unit_text(std::ldexp(1.0, static_cast<int>(k) - 1), unit) + ", " +
         unit_text(std::ldexp(1.0, static_cast<int>(k)), unit) + "]";
}

void histogram(std::string& out, const metrics::Series& s, plan::FieldUnit unit) {
  out += "  " + labels_text(s.labels) + ": " + std::to_string(s.count) + " values";
  if (s.count > 0) {
    out += ", avg " + unit_text(static_cast<double>(s.sum) / static_cast<double>(s.count), unit);
    for (double q : {0.5, 0.9, 0.99})
      if (auto v = metrics::histogram_quantile(s.buckets, q))
        out += ", p" + number_text(q * 100) + " " + unit_text(*v, unit);
  }
  out += "\n";
  std::vector<uint64_t> rows;
  for (size_t i = 0; i < s.buckets.size(); ++i) {
    if (s.buckets[i] == 0) continue;
    size_t k = row_of(static_cast<uint32_t>(i));
    if (rows.size() <= k) rows.resize(k + 1, 0);
    rows[k] += s.buckets[i];
  }
  size_t first = rows.size(), last = 0;
  uint64_t most = 0;
  for (size_t k = 0; k < rows.size(); ++k)
    if (rows[k] > 0) {
      first = std::min(first, k);
      last = k;
      most = std::max(most, rows[k]);
    }
  if (most == 0) return;
  std::vector<std::string> ranges;
  size_t width = 0;
  for (size_t k = first; k <= last; ++k) {
    ranges.push_back(row_text(k, unit));
    width = std::max(width, ranges.back().size());
  }
  for (size_t k = first; k <= last; ++k) {
    const std::string& range = ranges[k - first];
    int bar = static_cast<int>((rows[k] * kBarWidth + most - 1) / most);
    char count[24];
    std::snprintf(count, sizeof count, "%8llu", static_cast<unsigned long long>(rows[k]));
    out += "    " + range + std::string(width - range.size(), ' ') + " " + count + " |" +
           std::string(bar, '@') + std::string(kBarWidth - bar, ' ') + "|\n";
  }
}

}  // namespace

std::string unit_text(double value, plan::FieldUnit unit) {
  char buf[32];
  if (unit == plan::FieldUnit::Ns) {
    static const struct {
      double scale;
      const char* suffix;
    } kTimes[] = {{3600e9, "h"}, {60e9, "m"}, {1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
    for (const auto& t : kTimes)
      if (std::fabs(value) >= t.scale || t.scale == 1) {
        std::snprintf(buf, sizeof buf, "%.4g%s", value / t.scale, t.suffix);
        return buf;
      }
  }
  if (unit == plan::FieldUnit::Bytes) {
    static const char* const kSizes[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (std::fabs(value) >= 1024 && i < 4) {
      value /= 1024;
      ++i;
    }
    std::snprintf(buf, sizeof buf, "%.4g%s", value, kSizes[i]);
    return buf;
  }
  return number_text(value);
}

std::string metric_summary(const plan::Metric& metric, const std::vector<metrics::Series>& series) {
  if (series.empty()) return "";  // no series yet: the metric is still printed once it has one
  std::string out = "metric " + metric.name + " (" + kind_text(metric.kind);
  if (!metric.labels.empty()) {
    out += " by";
    for (size_t i = 0; i < metric.labels.size(); ++i) out += (i ? ", " : " ") + metric.labels[i].name;
  }
  out += ")";
  if (!metric.origin.empty()) out += " from " + metric.origin;
  out += "\n";
  std::vector<const metrics::Series*> sorted;
  for (const metrics::Series& s : series)
    if (s.count > 0) sorted.push_back(&s);  // the empty overflow series says nothing
  // The busiest series first; the overflow series last.
  std::stable_sort(sorted.begin(), sorted.end(), [](const metrics::Series* a, const metrics::Series* b) {
    if (a->other != b->other) return b->other;
    return a->count > b->count;
  });
  for (const metrics::Series* s : sorted) {
    if (metric.kind == plan::MetricKind::Hist)
      histogram(out, *s, metric.unit);
    else if (metric.kind == plan::MetricKind::Sum)
      out += "  " + labels_text(s->labels) + ": " + unit_text(static_cast<double>(s->sum), metric.unit) +
             " in " + std::to_string(s->count) + " events\n";
    else
      out += "  " + labels_text(s->labels) + ": " + std::to_string(s->count) + "\n";
  }
  return out + "\n";
}

}  // namespace seam::runtime
