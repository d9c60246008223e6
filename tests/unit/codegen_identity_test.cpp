// Container and pod identity in rules and metrics: each distinct test becomes a bit of the
// identity map at the event's cgroup (the runtime fills it); metric labels keep the cgroup id.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

std::string program_of(const Compiled& c, plan::AttachKind kind) {
  for (const plan::Attachment& a : c.lowered.plan.attachments)
    if (a.kind == kind) return program_text(c.generated.c_source, a.program);
  return {};
}

TEST(CodegenIdentity, EachDistinctTestIsOneBitOfTheIdentityMapAtTheCgroup) {
  Compiled c = compile_text(
      "use cuda\n"
      "rule r on cuda.malloc where container == \"abc123def456\" and pod startswith \"web-\"\n"
      "    except namespace in (\"kube-system\", \"monitoring\")\n"
      "    except container_id != \"abc123def456\" or container == \"abc123def456\"\n"
      "    alert info \"x\"\n");
  ASSERT_EQ(c.diagnostics, "");
  const std::vector<plan::IdentityTest>& tests = c.lowered.plan.identity_tests;
  ASSERT_EQ(tests.size(), 5u);
  EXPECT_EQ(tests[0].field, "container");
  EXPECT_EQ(tests[0].value, "abc123def456");
  EXPECT_FALSE(tests[0].prefix);
  EXPECT_EQ(tests[1].field, "pod");
  EXPECT_TRUE(tests[1].prefix);
  EXPECT_EQ(tests[2].value, "kube-system");
  EXPECT_EQ(tests[3].field, "namespace");
  EXPECT_EQ(tests[4].field, "container_id");  // `container == "abc123def456"` again: bit 0
  std::string ret = program_of(c, plan::AttachKind::Uretprobe);
  EXPECT_NE(ret.find("seam_identity_has(bpf_get_current_cgroup_id(), 0)"), std::string::npos) << ret;
  EXPECT_NE(ret.find("seam_identity_has(bpf_get_current_cgroup_id(), 1)"), std::string::npos) << ret;
  EXPECT_NE(ret.find("!seam_identity_has(bpf_get_current_cgroup_id(), 4)"), std::string::npos) << ret;
  EXPECT_EQ(ret.find("seam_identity_has(bpf_get_current_cgroup_id(), 5)"), std::string::npos) << ret;
  EXPECT_NE(c.generated.c_source.find("#include \"seam_identity.h\""), std::string::npos);
  bool has_map = false;
  for (const plan::Map& m : c.lowered.plan.maps) has_map |= m.name == "seam_identity" && m.key_size == 8;
  EXPECT_TRUE(has_map);
  // The runtime reads the tests from the plan.
  plan::Plan back = nlohmann::json(c.lowered.plan).get<plan::Plan>();
  ASSERT_EQ(back.identity_tests.size(), 5u);
  EXPECT_EQ(back.identity_tests[1].value, "web-");
  EXPECT_TRUE(back.identity_tests[1].prefix);
}

TEST(CodegenIdentity, AFileWithoutIdentityTestsHasNoIdentityMap) {
  Compiled c = compile_text("use cuda\nrule r on cuda.malloc where comm == \"x\" alert info \"x\"\n");
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_TRUE(c.lowered.plan.identity_tests.empty());
  EXPECT_EQ(c.generated.c_source.find("seam_identity"), std::string::npos);
}

TEST(CodegenIdentity, AKeyedPairTestsTheCgroupOfTheThreadThatBeganIt) {
  Compiled c = compile_text(
      "use sched\nrule r on sched.offcpu where duration > 1ms and container == \"abc\"\n"
      "    alert info \"x\"\n");
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_NE(c.generated.c_source.find("seam_identity_has(sv->s["), std::string::npos) << c.generated.c_source;
}

TEST(CodegenIdentity, MetricsByContainerOrPodKeepTheCgroupIdInTheKey) {
  Compiled c = compile_text(
      "use cuda\n"
      "metric m on cuda.malloc where namespace == \"prod\" sum size by container, pod, namespace, comm\n");
  ASSERT_EQ(c.diagnostics, "");
  const plan::Metric& m = c.lowered.plan.metrics.at(0);
  ASSERT_EQ(m.labels.size(), 4u);
  EXPECT_EQ(m.labels[0].name, "container");
  EXPECT_EQ(m.labels[0].type, plan::FieldType::U64);
  EXPECT_EQ(m.labels[2].name, "namespace");
  EXPECT_EQ(c.lowered.plan.identity_tests.size(), 1u);
  std::string ret = program_of(c, plan::AttachKind::Uretprobe);
  EXPECT_NE(ret.find("seam_identity_has(bpf_get_current_cgroup_id(), 0)"), std::string::npos) << ret;
  EXPECT_NE(ret.find("bpf_get_current_cgroup_id()"), std::string::npos);
}

}  // namespace
}  // namespace seam::test
