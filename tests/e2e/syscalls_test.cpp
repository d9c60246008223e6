// stdlib/syscalls.seam end to end: the named span syscalls.futex (from the per-syscall
// tracepoints, whose record seam lays out from the format file) fires for a long futex wait with
// its arguments by name, and not for a short one; syscalls.any prints the syscall by name.
// Workloads are tests/fixtures/pack_workload.c; the rules keep to their pids, since syscall
// tracepoints see every process of the host.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using std::chrono::seconds;

// The rules, on the workloads' processes only (other tests run at the same time).
std::string rules_for(pid_t a, pid_t b) {
  std::string pids = "(pid == " + std::to_string(a) + " or pid == " + std::to_string(b) + ")";
  return "use syscalls\n"
         "rule futex_wait on syscalls.futex where " +
         pids +
         " and duration > 10ms and op & 0x7f == 0\n"
         "    alert info \"futex wait op {op} val {val} ret {ret}\" with pid, tid, uaddr, op, val, ret\n"
         "rule slow_syscall on syscalls.any where " +
         pids +
         " and duration > 1ms and id == mmap\n"
         "    alert info \"syscall {id} took {duration}\" with pid, id\n";
}

struct Workload {
  Workload(const std::string& what, const std::string& arg)
      : child({std::string(SEAM_FIXTURE_DIR) + "/pack_workload", what, arg}) {
    EXPECT_TRUE(child.wait_for_line("ready", seconds(10)));
  }
  void run() {
    child.send_line("go");
    EXPECT_TRUE(child.wait_for_line("done", seconds(30)));
    EXPECT_EQ(child.wait(), 0);
  }
  Child child;
};

// A ptr field's value: JSON writes pointers as hex strings ("0x7f..."); 0 when it is not one.
uint64_t pointer(const nlohmann::json& v) {
  return v.is_string() ? std::stoull(v.get<std::string>(), nullptr, 16) : 0;
}

// A thread blocked 30 ms on a mutex another holds waits in futex(FUTEX_WAIT_PRIVATE): one alert
// with the futex word, the op and the value; the same contention held 0 ms stays under 10 ms.
TEST(Syscalls, FutexSpanFiresForALongWaitWithNamedArguments) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Workload quiet("futex", "0");
  Workload loud("futex", "30");
  pid_t quiet_pid = quiet.child.pid(), loud_pid = loud.child.pid();
  SeamRun seam(dir.path(), {dir.write("sys.seam", rules_for(quiet_pid, loud_pid))});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  quiet.run();
  loud.run();
  wait_until([&] { return !of_pid(seam.alerts("futex_wait"), loud_pid).empty(); }, seconds(10));
  std::vector<nlohmann::json> loud_alerts = of_pid(seam.alerts("futex_wait"), loud_pid);
  ASSERT_EQ(loud_alerts.size(), 1u) << seam.stderr_text();
  const nlohmann::json& f = loud_alerts[0]["fields"];
  EXPECT_NE(loud_alerts[0].value("tid", 0), loud_pid) << "the waiter is the second thread";
  EXPECT_GE(f.value("duration", 0), 30'000'000) << f.dump();
  EXPECT_EQ(f.value("op", -1) & 0x7f, 0) << f.dump();  // FUTEX_WAIT (glibc adds PRIVATE)
  EXPECT_EQ(f.value("val", 0), 2) << f.dump();         // a contended glibc mutex's word
  EXPECT_EQ(f.value("ret", -1), 0) << f.dump();        // woken by the unlock
  EXPECT_NE(pointer(f["uaddr"]), 0u) << f.dump();      // the mutex's word
  EXPECT_EQ(of_pid(seam.alerts("futex_wait"), quiet_pid).size(), 0u) << seam.stderr_text();
}

// MAP_POPULATE of 128 MiB zeroes it inside the call: over 1 ms, and the alert names the syscall.
TEST(Syscalls, AnySpanPrintsTheSyscallByName) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Workload w("mmap", "128");
  pid_t pid = w.child.pid();
  SeamRun seam(dir.path(), {dir.write("sys.seam", rules_for(pid, pid)), "--output", "stdout"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  w.run();
  wait_until([&] { return !of_pid(seam.alerts("slow_syscall"), pid).empty(); }, seconds(10));
  std::vector<nlohmann::json> alerts = of_pid(seam.alerts("slow_syscall"), pid);
  ASSERT_EQ(alerts.size(), 1u) << seam.stderr_text();
  EXPECT_EQ(alerts[0]["fields"]["id"], "mmap") << alerts[0].dump();
  EXPECT_EQ(alerts[0].value("message", "").rfind("syscall mmap took ", 0), 0u) << alerts[0].dump();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  EXPECT_NE(seam.stdout_text().find(" id=mmap"), std::string::npos) << seam.stdout_text();
}

// Every named span loads and attaches; mmap and munmap of 128 MiB report their arguments by name.
TEST(Syscalls, EveryNamedSpanAttachesAndMmapReportsItsArguments) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Workload w("mmap", "128");
  std::string pid = "pid == " + std::to_string(w.child.pid());
  std::string rules = "use syscalls\n";
  for (const char* span : {"futex", "ioctl", "read", "pread64", "sendto", "recvfrom"})
    rules += std::string("rule ") + span + " on syscalls." + span + " where " + pid + " alert info \"x\"\n";
  rules += "rule map on syscalls.mmap where " + pid + " and len == 128MiB alert info \"mmap {len}\"" +
           " with addr, len, prot, flags, fd, off, ret\n";
  rules += "rule unmap on syscalls.munmap where " + pid +
           " and len == 128MiB alert info \"munmap\" with addr, len, ret\n";
  SeamRun seam(dir.path(), {dir.write("spans.seam", rules)});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  w.run();
  wait_until([&] { return seam.alerts("map").size() >= 1 && seam.alerts("unmap").size() >= 1; }, seconds(10));
  std::vector<nlohmann::json> map = seam.alerts("map"), unmap = seam.alerts("unmap");
  ASSERT_EQ(map.size(), 1u) << seam.stderr_text();
  ASSERT_EQ(unmap.size(), 1u) << seam.stderr_text();
  const nlohmann::json& m = map[0]["fields"];
  EXPECT_EQ(m.value("prot", 0), 3) << m.dump();        // PROT_READ | PROT_WRITE
  EXPECT_EQ(m.value("flags", 0), 0x8022) << m.dump();  // MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE
  EXPECT_EQ(m.value("fd", 0), -1) << m.dump();
  EXPECT_EQ(m.value("off", 1), 0) << m.dump();
  EXPECT_NE(pointer(unmap[0]["fields"]["addr"]), 0u) << unmap[0].dump();
  EXPECT_EQ(pointer(unmap[0]["fields"]["addr"]), m.value("ret", 0ull))
      << "munmap unmaps what mmap returned: " << unmap[0].dump() << m.dump();
  EXPECT_EQ(unmap[0]["fields"].value("ret", -1), 0) << unmap[0].dump();
}

}  // namespace
}  // namespace seam::test
