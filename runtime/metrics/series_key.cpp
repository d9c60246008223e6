#include "runtime/metrics/series_key.hpp"

#include <cstdint>
#include <cstring>

namespace seam::runtime::metrics {

namespace {

uint64_t read_unsigned(const std::string& key, uint32_t offset, uint32_t size) {
  uint64_t value = 0;
  if (size > sizeof value) size = sizeof value;
  if (offset >= key.size()) return 0;
  if (offset + size > key.size()) size = static_cast<uint32_t>(key.size() - offset);
  std::memcpy(&value, key.data() + offset, size);  // little-endian hosts: low bytes first
  return value;
}

}  // namespace

bool is_other_key(const std::string& key) {
  return read_unsigned(key, 0, 4) == 1;
}

Labels decode_labels(const plan::Metric& metric, const std::string& key,
                     const std::map<std::string, std::map<int64_t, std::string>>& enums) {
  Labels labels;
  bool other = is_other_key(key);
  for (const plan::MetricLabel& label : metric.labels) {
    std::string value;
    if (other) {
      value = "other";
    } else if (label.type == plan::FieldType::Str) {
      size_t begin = std::min<size_t>(label.offset, key.size());
      size_t end = std::min<size_t>(static_cast<size_t>(label.offset) + label.size, key.size());
      value.assign(key.data() + begin, end - begin);
      value.resize(std::strlen(value.c_str()));
    } else {
      uint64_t number = read_unsigned(key, label.offset, label.size);
      value = std::to_string(number);
      if (auto table = enums.find(label.enum_name); table != enums.end())
        if (auto name = table->second.find(static_cast<int64_t>(number)); name != table->second.end())
          value = name->second;
    }
    labels.emplace_back(label.name, std::move(value));
  }
  return labels;
}

}  // namespace seam::runtime::metrics
