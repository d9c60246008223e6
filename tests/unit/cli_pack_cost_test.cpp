// What the shipped pack costs a process it is not about, read from its plan: no program of the
// default pack (rules/) sits on raw_syscalls, which would run for every syscall of the host. Its
// syscall rules name their syscalls and run on those syscalls' own tracepoints; the one rule that
// watches every syscall is opt-in (rules-opt-in/syscall_any_slow.seam) and does sit there. Of the
// rules on kernel-wide events, only the memory stalls are host-wide: page faults are counted for
// the workload alone. (A rule id is its index in Plan::rules, as the runtime reads it.)
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "cli/compile_driver.hpp"
#include "support/test_support.hpp"

namespace seam::cli {
namespace {

const std::string kSource = SEAM_SOURCE_DIR;

plan::Plan pack_plan(const std::vector<std::string>& paths) {
  DriverOptions options;
  options.compile.paths = paths;
  CompileDriver driver(options);
  std::ostringstream err;
  CompiledRules all = driver.compile_all(err);
  EXPECT_TRUE(all.ok) << err.str();
  return all.lowered.plan;
}

// category:name of each attachment serving `rule` (every attachment when `rule` is empty).
std::set<std::string> sites(const plan::Plan& p, const std::string& rule = "") {
  std::set<std::string> out;
  for (const plan::Attachment& a : p.attachments) {
    bool serves = rule.empty();
    for (uint32_t id : a.rules) serves = serves || p.rules.at(id).name == rule;
    if (serves) out.insert(a.category + ":" + a.name);
  }
  return out;
}

TEST(PackCost, TheDefaultPackPutsNoProgramOnRawSyscalls) {
  plan::Plan p = pack_plan({kSource + "/rules"});
  for (const std::string& site : sites(p)) EXPECT_NE(site.rfind("raw_syscalls:", 0), 0u) << site;
  std::set<std::string> named;
  for (const char* sc : {"mmap", "munmap", "mprotect", "madvise", "brk", "openat", "write", "ioctl"})
    for (const char* end : {"enter", "exit"}) named.insert(std::string("syscalls:sys_") + end + "_" + sc);
  EXPECT_EQ(sites(p, "syscall_slow"), named);
}

TEST(PackCost, OnKernelEventsOnlyTheMemoryStallsAreHostWideAndFaultsCountForTheWorkload) {
  plan::Plan p = pack_plan({kSource + "/rules"});
  std::set<std::string> host_wide;
  for (const plan::Attachment& a : p.attachments) {
    if (a.kind != plan::AttachKind::Tracepoint && a.kind != plan::AttachKind::RawTracepoint) continue;
    for (uint32_t id : a.rules)
      if (p.rules.at(id).scope < 0) host_wide.insert(p.rules.at(id).name);
  }
  EXPECT_EQ(host_wide,
            (std::set<std::string>{"compaction_stall", "direct_reclaim_stall", "memcg_reclaim_stall"}));
  const plan::Metric* faults = nullptr;
  for (const plan::Metric& m : p.metrics)
    if (m.name == "page_faults") faults = &m;
  ASSERT_NE(faults, nullptr);
  ASSERT_GE(faults->scope, 0);
  EXPECT_EQ(p.scopes.at(static_cast<size_t>(faults->scope)).kind, plan::ScopeKind::Workload);
}

TEST(PackCost, TheOptInRuleOnEverySyscallIsTheOneOnRawSyscalls) {
  plan::Plan p = pack_plan({kSource + "/rules", kSource + "/rules-opt-in"});
  std::set<std::string> raw;
  for (const std::string& site : sites(p))
    if (site.rfind("raw_syscalls:", 0) == 0) raw.insert(site);
  EXPECT_EQ(raw, (std::set<std::string>{"raw_syscalls:sys_enter", "raw_syscalls:sys_exit"}));
  EXPECT_EQ(sites(p, "syscall_any_slow"), raw);
}

}  // namespace
}  // namespace seam::cli
