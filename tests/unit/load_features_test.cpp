// probe_features on this kernel (6.18, no CONFIG_KPROBES, fentry refused with EPERM).
#include <gtest/gtest.h>
#include <unistd.h>

#include "runtime/load/features.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

using plan::Feature;

TEST(Features, ThisKernelHasUprobesTracepointsAndBtfTracepoints) {
  SEAM_REQUIRE_ROOT();
  const FeatureSet& f = probe_features();
  for (Feature feature : {Feature::Uprobe, Feature::Usdt, Feature::Tracepoint, Feature::RawTracepoint,
                          Feature::TpBtf, Feature::PerfEvent})
    EXPECT_TRUE(f.available(feature)) << plan::to_string(feature) << ": " << f.reason(feature);
  std::printf("[bench] probe_features: %.1f ms (vmlinux BTF parse %.1f ms)\n", f.probe_ms, f.btf_load_ms);
  std::printf("  %-14s %6.1f ms %s\n", "uprobe_multi", f.uprobe_multi.probe_ms,
              f.uprobe_multi.available ? "yes" : f.uprobe_multi.reason.c_str());
  for (Feature feature : FeatureSet::kAll)
    std::printf("  %-14s %6.1f ms %s\n", plan::to_string(feature), f.at(feature).probe_ms,
                f.available(feature) ? "yes" : f.reason(feature).c_str());
}

TEST(Features, KprobesAndFentryAreMissingWithReasons) {
  SEAM_REQUIRE_ROOT();
  const FeatureSet& f = probe_features();
  EXPECT_FALSE(f.available(Feature::Kprobe));
  EXPECT_NE(f.reason(Feature::Kprobe).find("kprobe"), std::string::npos) << f.reason(Feature::Kprobe);
  EXPECT_NE(f.reason(Feature::Kprobe).find("perf_event_open"), std::string::npos)
      << f.reason(Feature::Kprobe);
  EXPECT_FALSE(f.available(Feature::Fentry));
  EXPECT_NE(f.reason(Feature::Fentry).find("fentry: program load refused (EPERM"), std::string::npos)
      << f.reason(Feature::Fentry);
}

// How long probing takes is the benchmark's business (bench/), not a test's: here, that probing
// again agrees with the cached answers and the cache is one object.
TEST(Features, ProbingAgainAgreesWithTheCachedAnswers) {
  SEAM_REQUIRE_ROOT();
  FeatureSet again = probe_features_uncached();
  EXPECT_EQ(&probe_features(), &probe_features());
  for (Feature feature : FeatureSet::kAll)
    EXPECT_EQ(again.available(feature), probe_features().available(feature));
}

TEST(Features, TracefsIsMountedAfterProbing) {
  SEAM_REQUIRE_ROOT();
  probe_features();
  EXPECT_EQ(access("/sys/kernel/tracing/events/sched/sched_process_exec/id", F_OK), 0);
}

}  // namespace
}  // namespace seam::runtime
