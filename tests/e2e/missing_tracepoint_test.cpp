// A tracepoint this kernel does not have disables only the rules that need it: the file's other
// rules are built, loaded and alert, and a probe-unavailable notice names the rule and the probe
// (docs/operations.md, "Strict mode and loud failures").
#include <gtest/gtest.h>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

TEST(MissingTracepoint, OnlyTheRuleThatNeedsItIsDisabled) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("r.seam",
                                "use cuda\n"
                                "point nope = tracepoint sched:sched_no_such_event\n"
                                "rule broken on nope alert info \"never\"\n"
                                "metric nopes on nope count\n"
                                "rule nopes_fast when rate(nopes) over 10s > 1 alert info \"never\"\n"
                                "rule works on cuda.stream_sync alert info \"sync\"\n");
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child caller({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "2", "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", 10s));
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller.pid()), "--listen", "off"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", 60s)) << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", 10s));
  ASSERT_TRUE(wait_until([&] { return of_pid(seam.alerts("works"), caller.pid()).size() >= 2; }, 10s))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  EXPECT_EQ(of_pid(seam.alerts("works"), caller.pid()).size(), 2u);
  std::map<std::string, std::string> unavailable;  // rule -> message
  for (const nlohmann::json& n : seam.notices("probe-unavailable"))
    unavailable[n.value("rule", "")] = n.value("message", "");
  ASSERT_EQ(unavailable.count("broken"), 1u) << seam.stderr_text();
  EXPECT_EQ(unavailable["broken"],
            "rule broken (" + rules +
                ":3) is disabled: tracepoint sched:sched_no_such_event: this kernel has no such tracepoint; "
                "the file's other rules run");
  ASSERT_EQ(unavailable.count("nopes_fast"), 1u) << seam.stderr_text();
  EXPECT_NE(unavailable["nopes_fast"].find("metric nopes: tracepoint sched:sched_no_such_event"),
            std::string::npos)
      << unavailable["nopes_fast"];
  EXPECT_EQ(unavailable.count("works"), 0u);
}

}  // namespace
}  // namespace seam::test
