#include "runtime/metrics/identity_labels.hpp"

#include <cstdlib>

#include "compiler/plan/plan.hpp"

namespace seam::runtime::metrics {

Labels name_identity_labels(Labels labels, const IdentityNamer& namer, bool other) {
  if (!namer || other) return labels;
  for (auto& [name, value] : labels)
    if (plan::is_identity_label(name)) value = namer(name, std::strtoull(value.c_str(), nullptr, 10));
  return labels;
}

void add_values(uint64_t count, uint64_t sum, const std::vector<uint64_t>& buckets, uint64_t* into_count,
                uint64_t* into_sum, std::vector<uint64_t>* into_buckets) {
  *into_count += count;
  *into_sum += sum;
  if (into_buckets->size() < buckets.size()) into_buckets->resize(buckets.size(), 0);
  for (size_t i = 0; i < buckets.size(); ++i) (*into_buckets)[i] += buckets[i];
}

}  // namespace seam::runtime::metrics
