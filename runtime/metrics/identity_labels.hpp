#pragma once
// Metrics `by container`, `by pod`, ...: the kernel keys such a series by the cgroup id (all it
// knows); user space serves it as that cgroup's identity, and cgroups of one identity (a pod's
// containers, a container's nested cgroups) are one series, their counts summed.
#include <cstdint>
#include <functional>
#include <string>

#include "runtime/metrics/series.hpp"

namespace seam::runtime::metrics {

// The value of identity label `label` (container, container_id, pod, namespace) for a cgroup
// id; "" where the cgroup has none (a process outside containers).
using IdentityNamer = std::function<std::string(const std::string& label, uint64_t cgroup)>;

// `labels` with every identity label's value (a decimal cgroup id) replaced by `namer`'s answer;
// unchanged without a namer, and for the overflow series.
Labels name_identity_labels(Labels labels, const IdentityNamer& namer, bool other);

// Adds one series' values into another of the same labels (counts, sums, buckets).
void add_values(uint64_t count, uint64_t sum, const std::vector<uint64_t>& buckets, uint64_t* into_count,
                uint64_t* into_sum, std::vector<uint64_t>* into_buckets);

}  // namespace seam::runtime::metrics
