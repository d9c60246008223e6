#pragma once
// Metric maps made by hand for the engine's tests: keys laid out as the kernel lays them out, and
// per-CPU values the test chooses.
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/metrics/map_reader.hpp"

namespace seam::runtime::metrics::test {

// What the fake maps hold now, by map name; the test changes it between samples.
struct FakeMaps {
  std::map<std::string, MapContents> maps;
  std::map<std::string, std::string> failing;  // map name -> error
};

class FakeReader final : public MetricMapReader {
 public:
  explicit FakeReader(std::shared_ptr<FakeMaps> maps) : maps_(std::move(maps)) {}
  Result<MapContents> read(const plan::Metric& metric) override {
    if (auto f = maps_->failing.find(metric.map); f != maps_->failing.end()) return Error{f->second};
    auto it = maps_->maps.find(metric.map);
    return it == maps_->maps.end() ? MapContents{} : it->second;
  }

 private:
  std::shared_ptr<FakeMaps> maps_;
};

// A metric whose labels are laid out after {u32 other; u32 pad}: comm takes 16 bytes, others 8.
inline plan::Metric make_metric(const std::string& name, plan::MetricKind kind, plan::FieldUnit unit,
                                const std::vector<std::string>& labels) {
  plan::Metric m;
  m.name = name;
  m.map = "seam_metric_" + name;
  m.kind = kind;
  m.unit = unit;
  uint32_t offset = 8;
  for (const std::string& l : labels) {
    plan::MetricLabel label{l, l == "comm" ? plan::FieldType::Str : plan::FieldType::U64, offset,
                            l == "comm" ? 16u : 8u, ""};
    m.labels.push_back(label);
    offset += label.size;
  }
  m.key_size = offset;
  m.value_size = kind == plan::MetricKind::Hist ? 16 + 8 * plan::kHistBuckets : 16;
  return m;
}

// A key: label values given as strings for comm, numbers otherwise.
struct KeyValue {
  std::string text;
  uint64_t number = 0;
};
inline std::string make_key(const plan::Metric& m, const std::vector<KeyValue>& values, bool other = false) {
  std::string key(m.key_size, '\0');
  uint32_t flag = other ? 1 : 0;
  std::memcpy(key.data(), &flag, 4);
  for (size_t i = 0; i < values.size() && i < m.labels.size(); ++i) {
    const plan::MetricLabel& l = m.labels[i];
    if (l.type == plan::FieldType::Str)
      std::memcpy(key.data() + l.offset, values[i].text.data(),
                  std::min<size_t>(values[i].text.size(), l.size));
    else
      std::memcpy(key.data() + l.offset, &values[i].number, 8);
  }
  return key;
}

// Values of one CPU: count, sum and, for histograms, {bucket index, count} pairs.
struct CpuValue {
  uint64_t count = 0;
  uint64_t sum = 0;
  std::vector<std::pair<size_t, uint64_t>> buckets;
};
inline PerCpuEntry make_entry(const plan::Metric& m, std::string key, const std::vector<CpuValue>& cpus) {
  size_t words = m.value_size / 8;
  PerCpuEntry e{std::move(key), std::vector<uint64_t>(words * cpus.size(), 0)};
  for (size_t c = 0; c < cpus.size(); ++c) {
    e.values[c * words] = cpus[c].count;
    e.values[c * words + 1] = cpus[c].sum;
    for (auto [bucket, n] : cpus[c].buckets) e.values[c * words + 2 + bucket] = n;
  }
  return e;
}

}  // namespace seam::runtime::metrics::test
