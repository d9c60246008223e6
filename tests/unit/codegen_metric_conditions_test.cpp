// Metrics with `while` and `after` (docs/language.md, metric): the update is guarded by the
// state and correlation tests a rule would have, where the event completes.
#include <gtest/gtest.h>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

std::string program_of(const Compiled& c, plan::AttachKind kind) {
  for (const plan::Attachment& a : c.lowered.plan.attachments)
    if (a.kind == kind) return program_text(c.generated.c_source, a.program);
  return {};
}

TEST(CodegenMetricConditions, WhileAndAfterGuardTheUpdate) {
  Compiled c = compile_text(
      "use cuda, usdt\n"
      "metric m on cuda.launch after usdt.request_start within 1m where usdt.request_start.id == 7\n"
      "    while usdt.in_request count\n");
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_EQ(c.lowered.metric_updates.size(), 1u);
  const plan::Cond& when = c.lowered.metric_updates[0].when;
  // where, then while, then the correlation: cheap comparisons first.
  ASSERT_EQ(when.op, plan::CondOp::And);
  EXPECT_EQ(when.kids[0].op, plan::CondOp::Eq);
  ASSERT_EQ(when.kids[1].op, plan::CondOp::And);
  EXPECT_EQ(when.kids[1].kids[0].op, plan::CondOp::StateHeld);
  EXPECT_EQ(when.kids[1].kids[1].op, plan::CondOp::CorrelatedWithin);
  EXPECT_EQ(when.kids[1].kids[1].within_ns, 60'000'000'000);
  ASSERT_EQ(c.lowered.correlations.size(), 1u);
  // A count with a condition is counted at the return, not the entry.
  std::string ret = program_of(c, plan::AttachKind::Uretprobe);
  EXPECT_NE(ret.find("metric m"), std::string::npos) << c.generated.c_source;
  std::string entry = program_of(c, plan::AttachKind::Uprobe);
  EXPECT_EQ(entry.find("metric m"), std::string::npos) << entry;
}

// `by usdt.request_start.id` alone, request_start beginning the span usdt.request keyed by id: the
// id's series ends with the request (lower_span_key.cpp).
TEST(CodegenMetricConditions, ASeriesBySpanKeyEndsWithItsSpan) {
  Compiled c = compile_text(
      "use cuda, usdt\n"
      "metric per_request on cuda.launch while usdt.in_request\n"
      "    after usdt.request_start within 1m count by usdt.request_start.id\n");
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_EQ(c.lowered.plan.metrics.size(), 2u);
  const plan::Metric& live = c.lowered.plan.metrics[0];
  const plan::Metric& ended = c.lowered.plan.metrics[1];
  EXPECT_FALSE(live.per_cpu);  // read whole and deleted in the kernel
  EXPECT_EQ(ended.name, "per_request_ended");
  EXPECT_EQ(ended.kind, plan::MetricKind::Hist);
  EXPECT_TRUE(ended.labels.empty());
  // The span usdt.request is kept in flight by id; the launch needs its request in flight.
  int request = -1;
  for (size_t i = 0; i < c.lowered.spans.size(); ++i)
    if (c.lowered.spans[i].name == "usdt.request") request = static_cast<int>(i);
  ASSERT_GE(request, 0);
  const std::string& inflight = c.lowered.spans[static_cast<size_t>(request)].map;
  const plan::Cond& when = c.lowered.metric_updates[0].when;
  ASSERT_EQ(when.op, plan::CondOp::And);
  EXPECT_EQ(when.kids[1].op, plan::CondOp::CorrelatedWithin);
  EXPECT_EQ(when.kids[1].span, request);
  EXPECT_NE(c.generated.c_source.find("bpf_map_lookup_elem(&" + inflight + ", &(__u32){(__u32)c->s["),
            std::string::npos)
      << c.generated.c_source;
  // At the request's end: its series read, deleted and observed into the histogram.
  std::string end;
  for (const plan::Attachment& a : c.lowered.plan.attachments)
    if (a.name == "inference_end") end = program_text(c.generated.c_source, a.program);
  size_t retire = end.find("metric per_request: the series of this span's key ends with the span");
  ASSERT_NE(retire, std::string::npos) << end;
  EXPECT_NE(end.find("bpf_map_delete_elem(&" + live.map + ", &k);", retire), std::string::npos) << end;
  EXPECT_NE(end.find("SEAM_HIST_ADD(m->buckets, v);", retire), std::string::npos) << end;
}

// The same `by` with another label, or a hist, keeps its series (nothing to retire them by).
TEST(CodegenMetricConditions, OnlyASeriesByTheSpanKeyAloneEndsWithItsSpan) {
  Compiled c = compile_text(
      "use cuda, usdt\n"
      "metric a on cuda.launch after usdt.request_start within 1m count by usdt.request_start.id, pid\n"
      "metric b on cuda.stream_sync after usdt.request_start within 1m hist duration by "
      "usdt.request_start.id\n");
  ASSERT_EQ(c.diagnostics, "");
  EXPECT_EQ(c.lowered.plan.metrics.size(), 2u);
  EXPECT_EQ(c.generated.c_source.find("ends with the span"), std::string::npos);
}

TEST(CodegenMetricConditions, ARepeatedClauseIsE0203) {
  Compiled c = compile_text(
      "use cuda, usdt\nmetric m on cuda.launch while usdt.in_request while usdt.in_request count\n");
  EXPECT_NE(
      c.diagnostics.find("error[E0203]: duplicate 'while' clause in metric 'm'; each clause may appear once"),
      std::string::npos)
      << c.diagnostics;
}

TEST(CodegenMetricConditions, WhileTakesStatesOnly) {
  Compiled c = compile_text("use cuda\nmetric m on cuda.launch while comm == \"x\" count\n");
  EXPECT_NE(c.diagnostics.find("error[E0306]: `while` takes states combined with and, or, not"),
            std::string::npos)
      << c.diagnostics;
}

TEST(CodegenMetricConditions, ALabelFromTheAfterEventIsItsRememberedField) {
  Compiled c = compile_text(
      "use cuda, usdt\n"
      "metric per_request on cuda.launch after usdt.request_start within 1m count by usdt.request_start.id, "
      "pid\n");
  ASSERT_EQ(c.diagnostics, "");
  const plan::Metric& m = c.lowered.plan.metrics.at(0);
  ASSERT_EQ(m.labels.size(), 2u);
  EXPECT_EQ(m.labels[0].name, "id");
  EXPECT_EQ(m.labels[0].type, plan::FieldType::U64);
  EXPECT_EQ(c.lowered.metric_updates.at(0).labels.at(0).kind, plan::ValueKind::Correlated);
  std::string ret = program_of(c, plan::AttachKind::Uretprobe);
  ASSERT_EQ(c.lowered.correlations.size(), 1u);
  EXPECT_NE(
      ret.find("k.l0 = (__u64)((__u64)(__u64)(({ struct " + c.lowered.correlations[0].map + "_value *c = "),
      std::string::npos)
      << ret;
}

TEST(CodegenMetricConditions, ALabelOfAnotherEventNeedsItsAfterE0104) {
  Compiled c = compile_text("use cuda, usdt\nmetric m on cuda.launch count by usdt.request_start.id\n");
  EXPECT_NE(c.diagnostics.find("error[E0104]: unknown label 'usdt.request_start.id'"), std::string::npos)
      << c.diagnostics;
  EXPECT_NE(c.diagnostics.find("hint: a label EVENT.field needs `after EVENT within DURATION` in the metric"),
            std::string::npos)
      << c.diagnostics;
}

}  // namespace
}  // namespace seam::test
