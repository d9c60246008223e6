#pragma once
// One labelled series of a metric, summed over CPUs: what the kernel counted since load.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace seam::runtime::metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Series {
  Labels labels;  // in the metric's label order; every value is "other" for the overflow series
  uint64_t count = 0;
  uint64_t sum = 0;
  std::vector<uint64_t> buckets;  // plan::kHistBuckets entries for histograms, empty otherwise
  bool other = false;             // the overflow series (the kernel's key with other = 1)
};

}  // namespace seam::runtime::metrics
