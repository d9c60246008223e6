#pragma once
// The layout of histogram buckets, shared by the kernel's bucket function (bpf-templates/
// seam_rules.h, SEAM_HIST_*) and everything in user space that reads the buckets.
//
// Log-linear: values up to kHistSub are counted exactly; above, every power of two is split into
// kHistSub equal sub-buckets. A bucket's width is then at most 1/kHistSub of its lower bound, so
// any value inside a bucket (an interpolated quantile, say) is within 1/64 = 1.6% of every
// value the bucket counted. Values above 2^kHistTopBits count in the last bucket.
//
// Bucket i counts values v with lower(i) < v <= upper(i) (bucket 0 also counts v = 0), so that an
// upper bound is an exact Prometheus `le` bound. The kernel computes it from u = v - 1:
//   u < kHistSub:       i = u
//   2^e <= u < 2^(e+1): i = kHistSub + (e - kHistSubBits) * kHistSub + (u >> (e - kHistSubBits)) - kHistSub
#include <cstdint>

namespace seam::plan {

inline constexpr uint32_t kHistSubBits = 6;
inline constexpr uint32_t kHistSub = 1u << kHistSubBits;  // 64 sub-buckets per power of two
inline constexpr uint32_t kHistTopBits = 40;              // 2^40 ns is 18 minutes, 2^40 bytes 1 TiB
inline constexpr uint32_t kHistBuckets = kHistSub + (kHistTopBits - kHistSubBits) * kHistSub;  // 2240

// The bucket of v, as the kernel computes it.
constexpr uint32_t hist_bucket_of(uint64_t v) {
  uint64_t u = v ? v - 1 : 0;
  if (u < kHistSub) return static_cast<uint32_t>(u);
  uint32_t e = 63 - static_cast<uint32_t>(__builtin_clzll(u));
  if (e >= kHistTopBits) return kHistBuckets - 1;
  uint32_t shift = e - kHistSubBits;
  return kHistSub + shift * kHistSub + static_cast<uint32_t>(u >> shift) - kHistSub;
}

// Bucket i's bounds: it counts lower < v <= upper.
constexpr uint64_t hist_bucket_upper(uint32_t i) {
  if (i < kHistSub) return i + 1;
  uint32_t shift = (i - kHistSub) / kHistSub;
  uint64_t sub = (i - kHistSub) % kHistSub;
  return (kHistSub + sub + 1) << shift;
}
constexpr uint64_t hist_bucket_lower(uint32_t i) {
  if (i == 0) return 0;
  return hist_bucket_upper(i - 1);
}

}  // namespace seam::plan
