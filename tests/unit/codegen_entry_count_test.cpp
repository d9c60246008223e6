// Pay only for what a rule needs: a count of calls by the caller is counted at the call's entry,
// so its plan has no return site (no uretprobe, no in-flight map); a histogram of durations on
// the same call still has one. Asserted on the plan and the generated C.
#include <gtest/gtest.h>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

size_t attachments_of(const plan::Plan& p, plan::AttachKind kind) {
  size_t n = 0;
  for (const plan::Attachment& a : p.attachments) n += a.kind == kind;
  return n;
}

TEST(CodegenEntryCount, ACountOnlySpanHasNoReturnSite) {
  Compiled c = compile_text("use cuda\nmetric kernel_launches on cuda.launch count by pid, comm\n");
  ASSERT_EQ(c.diagnostics, "");
  const plan::Plan& p = c.lowered.plan;
  EXPECT_EQ(attachments_of(p, plan::AttachKind::Uretprobe), 0u);
  EXPECT_EQ(attachments_of(p, plan::AttachKind::Uprobe), 1u);
  EXPECT_TRUE(c.lowered.spans.empty());
  ASSERT_EQ(c.lowered.sites.size(), 1u);
  ASSERT_EQ(c.lowered.sites[0].actions.size(), 1u);
  EXPECT_EQ(c.lowered.sites[0].actions[0].kind, plan::ActionKind::MetricUpdate);
  const std::string& src = c.generated.c_source;
  EXPECT_EQ(src.find("SEC(\"uretprobe"), std::string::npos);
  size_t entry = src.find("SEC(\"uprobe");
  ASSERT_NE(entry, std::string::npos);
  EXPECT_NE(src.find(p.metrics.at(0).map, entry), std::string::npos) << src;  // updated in the entry program
}

TEST(CodegenEntryCount, ADurationOrAFilterStillEndsAtTheReturn) {
  for (const char* metric : {"metric t on cuda.launch hist duration by pid\n",
                             "metric n on cuda.launch where ret != 0 count by pid\n"}) {
    Compiled c = compile_text(std::string("use cuda\n") + metric);
    ASSERT_EQ(c.diagnostics, "") << metric;
    EXPECT_EQ(attachments_of(c.lowered.plan, plan::AttachKind::Uretprobe), 1u) << metric;
  }
}

}  // namespace
}  // namespace seam::test
