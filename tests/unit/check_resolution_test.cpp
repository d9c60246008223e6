// What the checker fills in for lowering: resolved events (aliases followed), field references,
// types and units, severities; and that the design's long-form examples check cleanly.
#include <gtest/gtest.h>

#include "support/test_support.hpp"

#include "unit/check_support.hpp"

namespace {

using namespace seam;
using seam::test::check_files;
using seam::test::lint_text;

// The long-form example, shared with the parser's tests.
const std::string kLongForm =
    seam::test::read_file(SEAM_SOURCE_DIR "/tests/fixtures/examples/long_form.seam");

template <class T>
std::vector<const T*> decls_of(const ast::File& f) {
  std::vector<const T*> out;
  for (const ast::Decl& d : f.decls)
    if (const T* x = std::get_if<T>(&d)) out.push_back(x);
  return out;
}

const ast::NameRef& name_ref(const ast::Expr& e) {
  return std::get<ast::NameRef>(e.node);
}
const ast::Binary& binary(const ast::Expr& e) {
  return std::get<ast::Binary>(e.node);
}

TEST(CheckResolution, LongFormExamplesAreClean) {
  EXPECT_EQ(lint_text(kLongForm), "");
}

TEST(CheckResolution, EventRuleSlotsAreFilled) {
  check::Program p = check_files({{"rules/a.seam", kLongForm}});
  ASSERT_EQ(p.rule_files.size(), 1u);
  auto rules = decls_of<ast::RuleDecl>(p.rule_files[0]);
  ASSERT_EQ(rules.size(), 3u);

  const ast::RuleDecl& sync = *rules[0];
  ASSERT_NE(sync.resolved_event, nullptr);
  EXPECT_EQ(sync.resolved_event->name.name, "stream_sync");
  EXPECT_EQ(sync.resolved_event->module, "cuda");
  EXPECT_EQ(sync.where->type, ast::Type::of(ast::TypeKind::Bool));
  const ast::Binary& cmp = binary(*sync.where);
  EXPECT_EQ(name_ref(*cmp.lhs).kind, ast::RefKind::Builtin);
  EXPECT_EQ(name_ref(*cmp.lhs).builtin, "duration");
  EXPECT_EQ(cmp.lhs->type, ast::Type::integer(64, false, ast::Unit::Duration));
  EXPECT_EQ(cmp.rhs->type.unit, ast::Unit::Duration);
  const ast::NameRef& gil = name_ref(*sync.while_);
  EXPECT_EQ(gil.kind, ast::RefKind::State);
  ASSERT_NE(gil.state, nullptr);
  EXPECT_EQ(gil.state->name.name, "gil_held");
  ASSERT_TRUE(sync.alert->severity);
  EXPECT_EQ(*sync.alert->severity, ast::Severity::Warning);
  const ast::MessagePart& hole = sync.alert->message[1];
  ASSERT_TRUE(hole.is_hole);
  EXPECT_EQ(hole.ref.kind, ast::RefKind::Builtin);
  EXPECT_EQ(hole.ref.builtin, "duration");

  const ast::RuleDecl& stall = *rules[1];
  ASSERT_TRUE(stall.after);
  ASSERT_NE(stall.after->resolved, nullptr);
  EXPECT_EQ(stall.after->resolved->name.name, "malloc");
  EXPECT_EQ(stall.after->within->type.unit, ast::Unit::Duration);
  const ast::MessagePart& size = stall.alert->message[3];
  ASSERT_TRUE(size.is_hole);
  EXPECT_EQ(size.ref.kind, ast::RefKind::OtherEvent);
  EXPECT_EQ(size.ref.event, stall.after->resolved);
  ASSERT_NE(size.ref.field, nullptr);
  EXPECT_EQ(size.ref.field->name.name, "size");
}

TEST(CheckResolution, WindowedRuleMetricAndRouteSlotsAreFilled) {
  check::Program p = check_files({{"rules/a.seam", kLongForm}});
  const ast::File& f = p.rule_files[0];
  const ast::MetricDecl& metric = *decls_of<ast::MetricDecl>(f)[0];
  ASSERT_NE(metric.resolved_event, nullptr);
  EXPECT_EQ(metric.value->type.unit, ast::Unit::Duration);

  const ast::RuleDecl& p99 = *decls_of<ast::RuleDecl>(f)[2];
  const ast::Binary& cmp = binary(*p99.when);
  const ast::Call& call = std::get<ast::Call>(cmp.lhs->node);
  EXPECT_EQ(cmp.lhs->type.unit, ast::Unit::Duration);
  EXPECT_EQ(name_ref(*call.args[0]).kind, ast::RefKind::Metric);
  EXPECT_EQ(name_ref(*call.args[0]).metric, &metric);
  EXPECT_EQ(call.window->type.unit, ast::Unit::Duration);
  EXPECT_EQ(*p99.alert->severity, ast::Severity::Critical);
  EXPECT_EQ(p99.alert->message[1].ref.kind, ast::RefKind::Value);

  const ast::RouteDecl& route = *decls_of<ast::RouteDecl>(f)[0];
  const ast::Binary& rc = binary(*route.condition);
  EXPECT_EQ(name_ref(*rc.lhs).kind, ast::RefKind::Severity);
  EXPECT_EQ(name_ref(*rc.lhs).builtin, "");
  EXPECT_EQ(name_ref(*rc.rhs).kind, ast::RefKind::Severity);
  EXPECT_EQ(name_ref(*rc.rhs).builtin, "warning");
}

TEST(CheckResolution, ShorthandFollowsAliasAndFillsStateLibrary) {
  const std::string text =
      "use cuda, python\ncudaStreamSynchronize > 10ms while gil_held -> alert with ustack limit 1 per 1s\n";
  EXPECT_EQ(lint_text(text), "");
  check::Program p = check_files({{"rules/a.seam", text}});
  const ast::RuleDecl& r = *decls_of<ast::RuleDecl>(p.rule_files[0])[0];
  ASSERT_NE(r.resolved_event, nullptr);
  EXPECT_EQ(r.resolved_event->name.name, "stream_sync");  // through `alias cudaStreamSynchronize`
  EXPECT_EQ(*r.alert->severity, ast::Severity::Warning);  // the default

  const ast::File* python = p.find_module("python");
  ASSERT_NE(python, nullptr);
  const ast::StateDecl& gil = *decls_of<ast::StateDecl>(*python)[0];
  for (const ast::StateTransition& t : gil.transitions) EXPECT_EQ(t.probe.library.name, "libpython");
  const ast::File* cuda = p.find_module("cuda");
  ASSERT_NE(cuda, nullptr);
  for (const ast::AliasDecl* a : decls_of<ast::AliasDecl>(*cuda))
    EXPECT_NE(a->resolved, nullptr) << a->name.name;
}

TEST(CheckResolution, FieldTypesComeFromDeclarations) {
  const std::string text =
      "use cuda\nrule big\n    on cuda.malloc where size >= 1GiB and ret != 0 and comm startswith \"py\" and "
      "devptr != 0\n    alert \"x\"\n";
  EXPECT_EQ(lint_text(text), "");
  check::Program p = check_files({{"rules/a.seam", text}});
  const ast::RuleDecl& r = *decls_of<ast::RuleDecl>(p.rule_files[0])[0];
  // ((size >= 1GiB and ret != 0) and comm startswith "py") and devptr != 0
  const ast::Binary& top = binary(*r.where);
  const ast::Binary& devptr = binary(*top.rhs);
  EXPECT_EQ(devptr.lhs->type.kind, ast::TypeKind::Ptr);
  const ast::Binary& mid = binary(*top.lhs);
  EXPECT_EQ(binary(*mid.rhs).lhs->type.kind, ast::TypeKind::Str);
  const ast::Binary& low = binary(*mid.lhs);
  EXPECT_EQ(binary(*low.lhs).lhs->type, ast::Type::integer(64, false, ast::Unit::Bytes));
  ast::Type cuda_error = ast::Type::integer(32, true);  // `ret: cudaError`, a C enum
  cuda_error.enum_name = "cudaError";
  EXPECT_EQ(binary(*low.rhs).lhs->type, cuda_error);
  EXPECT_EQ(name_ref(*binary(*low.rhs).lhs).kind, ast::RefKind::EventField);
}

TEST(CheckResolution, PendingOnItsOwnIsAccepted) {
  EXPECT_EQ(
      lint_text(
          "use cuda\nrule stuck\n    on cuda.stream_sync where pending > 5s\n    alert error \"stuck\"\n"),
      "");
}

TEST(CheckResolution, LocalEventsAndQualifiedOwnModule) {
  EXPECT_EQ(
      lint_text("point tick = interval 1s\nrule r\n    on tick where cpu == 0\n    alert info \"tick\"\n"),
      "");
  EXPECT_EQ(
      test::lint_files({{"mods/gpu.seam", "module gpu\npoint tick = interval 1s\nalias beat = gpu.tick\n"},
                        {"rules/a.seam", "use gpu\nrule r\n    on gpu.beat\n    alert \"x\"\n"}}),
      "");
}

}  // namespace

namespace {

TEST(CheckResolution, RouteConditionsTestSeverityAndRule) {
  const std::string text = "output o = stdout\nroute severity >= warning and rule == \"a\" -> o\n";
  EXPECT_EQ(lint_text(text), "");
  check::Program p = check_files({{"rules/a.seam", text}});
  const ast::RouteDecl& route = *decls_of<ast::RouteDecl>(p.rule_files[0])[0];
  const ast::Binary& rule_cmp = binary(*binary(*route.condition).rhs);
  EXPECT_EQ(name_ref(*rule_cmp.lhs).kind, ast::RefKind::Rule);
  EXPECT_EQ(rule_cmp.lhs->type.kind, ast::TypeKind::Str);
}

TEST(CheckResolution, SeverityComparesOnlyWithSeverityWords) {
  EXPECT_EQ(lint_text("output o = stdout\nroute severity == \"error\" -> o\n"),
            "rules/a.seam:2:19: error[E0302]: severity can only be compared with a severity word\n"
            "    2 | route severity == \"error\" -> o\n"
            "      |                   ^~~~~~~\n"
            "      = hint: severities are info, warning, error, critical\n"
            "\n"
            "1 error, 0 warnings\n");
}

}  // namespace
