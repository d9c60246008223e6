// The per-boot cache of feature probe results (runtime/load/feature_cache.hpp).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "runtime/load/feature_cache.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

using plan::Feature;

FeatureSet sample() {
  FeatureSet s;
  for (Feature f : FeatureSet::kAll) s.at(f) = {true, {}};
  s.at(Feature::Kprobe) = {false, "kprobe: this kernel has no kprobe support (...)"};
  s.uprobe_multi = {true, {}};
  return s;
}

TEST(FeatureCache, RoundTripsEveryFeatureAndItsReason) {
  test::TempDir dir;
  std::string path = feature_cache_path(dir.path());
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(path.rfind(dir.path() + "/features-", 0), 0u) << path;
  EXPECT_FALSE(read_feature_cache(path).has_value());  // nothing yet
  ASSERT_TRUE(write_feature_cache(path, sample()));
  std::optional<FeatureSet> back = read_feature_cache(path);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(back->from_cache);
  for (Feature f : FeatureSet::kAll) {
    EXPECT_EQ(back->available(f), sample().available(f)) << plan::to_string(f);
    EXPECT_EQ(back->reason(f), sample().reason(f));
  }
  EXPECT_TRUE(back->uprobe_multi.available);
}

TEST(FeatureCache, TheKeyIsTheSameWithinABoot) {
  test::TempDir dir;
  EXPECT_EQ(feature_cache_path(dir.path()), feature_cache_path(dir.path()));
}

TEST(FeatureCache, AFileOthersCanWriteIsIgnored) {
  test::TempDir dir;
  std::string path = feature_cache_path(dir.path());
  ASSERT_TRUE(write_feature_cache(path, sample()));
  ASSERT_EQ(chmod(path.c_str(), 0666), 0);
  EXPECT_FALSE(read_feature_cache(path).has_value());
}

TEST(FeatureCache, ATruncatedOrForeignFileIsIgnored) {
  test::TempDir dir;
  std::string path = feature_cache_path(dir.path());
  std::string name = path.substr(dir.path().size() + 1);
  dir.write(name, "{\"format\":1,\"features\":{\"uprobe\":");
  EXPECT_FALSE(read_feature_cache(path).has_value());
  dir.write(name, "{\"format\":99,\"features\":{}}");
  EXPECT_FALSE(read_feature_cache(path).has_value());
}

}  // namespace
}  // namespace seam::runtime
