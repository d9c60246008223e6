#pragma once
// Which kinds of BPF programs this kernel can load AND attach, decided by trying: a tiny
// program per kind, attached to a harmless target. Never by kernel version numbers.
#include <array>
#include <string>

#include "compiler/plan/plan.hpp"

namespace seam::runtime {

struct FeatureStatus {
  bool available = false;
  std::string reason;  // why not, for people: "kprobe: this kernel has no kprobe support (...)"
  double probe_ms = 0;
};

class FeatureSet {
 public:
  bool available(plan::Feature f) const { return at(f).available; }
  const std::string& reason(plan::Feature f) const { return at(f).reason; }
  FeatureStatus& at(plan::Feature f) { return status_[static_cast<size_t>(f)]; }
  const FeatureStatus& at(plan::Feature f) const { return status_[static_cast<size_t>(f)]; }
  // Uprobes through BPF links (kernel 6.6+): they detach in parallel (see uprobe_multi.hpp).
  FeatureStatus uprobe_multi;
  double probe_ms = 0;  // how long probing took, in all
  double btf_load_ms = 0;
  bool from_cache = false;  // read from the per-boot cache (feature_cache.hpp): nothing was probed

  static constexpr plan::Feature kAll[] = {
      plan::Feature::Uprobe, plan::Feature::Tracepoint, plan::Feature::RawTracepoint, plan::Feature::TpBtf,
      plan::Feature::Kprobe, plan::Feature::Fentry,     plan::Feature::PerfEvent,     plan::Feature::Usdt};

 private:
  std::array<FeatureStatus, 8> status_;
};

// Probes once per process (later calls return the first result), or reads what an earlier run
// probed in this boot (feature_cache.hpp). Mounts tracefs if needed.
const FeatureSet& probe_features();
// Probes again, ignoring the cached result (tests).
FeatureSet probe_features_uncached();

// Loads r0 = 0; exit with expected attach type `attach_type` (kBpfTraceUprobeMulti,
// kBpfTraceUprobeSession: uprobe_multi.hpp) and links it by a uprobe_multi link at a file nobody
// maps: "" when the kernel took both, else why not, prefixed by `what`.
std::string uprobe_multi_link_refusal(int attach_type, const std::string& what);

}  // namespace seam::runtime
