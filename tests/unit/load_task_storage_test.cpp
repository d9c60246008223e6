// task_storage_support() on this kernel (6.18): the map type and both helpers are there for
// every program type seam generates per-thread maps in.
#include <gtest/gtest.h>

#include "runtime/load/task_storage_probe.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

TEST(TaskStorageProbe, ThisKernelLetsUprobeProgramsUseTaskStorage) {
  SEAM_REQUIRE_ROOT();
  const TaskStorageSupport& s = task_storage_support();
  EXPECT_TRUE(s.usable) << s.reason;
  EXPECT_EQ(s.reason, "");
  EXPECT_EQ(&task_storage_support(), &s);  // probed once
}

}  // namespace
}  // namespace seam::runtime
