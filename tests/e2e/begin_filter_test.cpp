// Pay only for what a rule needs, end to end: a rule on syscalls.any that names its syscall runs
// on that syscall's own tracepoints, and a rule that stays on raw_syscalls has its begin-time
// conjuncts (an argument, the pid) tested where the syscall enters. Both must alert exactly as
// before: for each matching syscall, for no other. The workload (tests/fixtures/pack_workload.c)
// makes N ioctl(FIONREAD) calls between its other syscalls; the rules keep to its pid.
#include <gtest/gtest.h>

#include <string>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using std::chrono::seconds;

constexpr int kIoctls = 40;

std::string rules_for(pid_t pid) {
  std::string p = "pid == " + std::to_string(pid);
  return "use syscalls\n"
         "rule named on syscalls.any where " +
         p +
         " and id == ioctl alert info \"{id}\" with pid, id, ret\n"
         "rule by_arg on syscalls.any where " +
         p +
         " and args[1] == 0x541B alert info \"{id}\" with pid, id\n"
         "rule every on syscalls.any where " +
         p + " alert info \"{id}\" with pid, id\n";
}

size_t with_id(const std::vector<nlohmann::json>& alerts, const std::string& id) {
  size_t n = 0;
  for (const nlohmann::json& a : alerts) n += a["fields"].value("id", "") == id;
  return n;
}

TEST(BeginFilter, FilteredSpansAlertForTheMatchingSyscallAndNoOther) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Child w({std::string(SEAM_FIXTURE_DIR) + "/pack_workload", "ioctl", std::to_string(kIoctls)});
  ASSERT_TRUE(w.wait_for_line("ready", seconds(10)));
  pid_t pid = w.pid();
  std::string file = dir.write("sys.seam", rules_for(pid));

  // The plan: `named` on the ioctl tracepoints, the other two on raw_syscalls behind a filter.
  CommandResult layout = run_command({SEAM_EXE, "compile", file, "--emit", "layout"});
  ASSERT_EQ(layout.exit_code, 0) << layout.err;
  nlohmann::json plan = nlohmann::json::parse(layout.out);
  std::string raw_begins, ioctl_begins;
  for (const nlohmann::json& a : plan["attachments"]) {
    std::string where = a.value("category", "") + ":" + a.value("name", "");
    if (where == "raw_syscalls:sys_enter") raw_begins = a["span_begins"].dump();
    if (where == "syscalls:sys_enter_ioctl") ioctl_begins = a["span_begins"].dump();
  }
  EXPECT_NE(ioctl_begins.find("when"), std::string::npos) << plan["attachments"].dump();
  EXPECT_NE(raw_begins.find("pid == " + std::to_string(pid)), std::string::npos) << raw_begins;

  SeamRun seam(dir.path(), {file});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  w.send_line("go");
  ASSERT_TRUE(w.wait_for_line("done", seconds(30)));
  EXPECT_EQ(w.wait(), 0);
  wait_until(
      [&] {
        return of_pid(seam.alerts("named"), pid).size() >= kIoctls &&
               of_pid(seam.alerts("by_arg"), pid).size() >= kIoctls &&
               with_id(of_pid(seam.alerts("every"), pid), "ioctl") >= kIoctls;
      },
      seconds(10));
  std::vector<nlohmann::json> named = of_pid(seam.alerts("named"), pid);
  std::vector<nlohmann::json> by_arg = of_pid(seam.alerts("by_arg"), pid);
  std::vector<nlohmann::json> every = of_pid(seam.alerts("every"), pid);
  EXPECT_EQ(named.size(), static_cast<size_t>(kIoctls)) << seam.stderr_text();
  EXPECT_EQ(with_id(named, "ioctl"), named.size());
  for (const nlohmann::json& a : named) EXPECT_EQ(a["fields"].value("ret", -1), 0) << a.dump();
  EXPECT_EQ(by_arg.size(), static_cast<size_t>(kIoctls)) << seam.stderr_text();
  EXPECT_EQ(with_id(by_arg, "ioctl"), by_arg.size());
  // The unfiltered rule saw the same ioctls and the workload's other syscalls (its read of "go",
  // its write of "done", its exit).
  EXPECT_EQ(with_id(every, "ioctl"), static_cast<size_t>(kIoctls));
  EXPECT_GT(every.size(), with_id(every, "ioctl")) << seam.stderr_text();
  EXPECT_GE(with_id(every, "write"), 1u);
}

}  // namespace
}  // namespace seam::test
