// Scope end to end (docs/language.md, "Scope"): `scope workload` rules alert for a process that
// maps the fixture CUDA runtime and not for a bystander doing the same waits; a late dlopen
// enters the scope; a child follows its process through fork and exec; an exited process leaves
// the seam_scope map; `seam run --cgroup` covers a child cgroup's process; a cgroup selector
// whose directory goes away gets a notice while the other files run on. Workloads are
// tests/fixtures/pack_workload.c; alerts are matched by pid (other tests share the host).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>

#include "compiler/plan/cgroup_path.hpp"
#include "runtime/run/scope_keeper.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using std::chrono::seconds;

std::string fixture(const std::string& name) {
  return std::string(SEAM_FIXTURE_DIR) + "/" + name;
}
std::string cudart() {
  return fixture("libcudart.so.12");
}

// The pack's syscalls.seam (scope workload) without its host-wide rate limits.
std::string syscalls_pack(const TempDir& dir) {
  std::ifstream in(std::string(SEAM_SOURCE_DIR) + "/rules/syscalls.seam");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  static const std::regex limit("limit [0-9]+ per [0-9]+[a-z]+");
  return dir.write("syscalls.seam", std::regex_replace(text, limit, "limit 1000000 per 1s"));
}

// A host-wide futex rule (no scope) for one pid.
std::string host_futex_rule(const TempDir& dir, const std::string& name, pid_t pid) {
  return dir.write(name + ".seam",
                   "use syscalls\nrule " + name + " on syscalls.futex where pid == " + std::to_string(pid) +
                       " and duration > 1ms\n    alert info \"waited {duration}\" with pid\n");
}

// pack_workload WHAT ARG, mapping `early` before "ready" and `late` after the first "go".
struct Workload {
  Workload(const std::string& what, const std::string& arg, const std::string& early = {},
           const std::string& late = {})
      : child((setenv("PACK_WORKLOAD_DLOPEN", early.c_str(), 1),
               setenv("PACK_WORKLOAD_LATE_DLOPEN", late.c_str(), 1),
               std::vector<std::string>{fixture("pack_workload"), what, arg})),
        pid(child.pid()) {
    unsetenv("PACK_WORKLOAD_DLOPEN");
    unsetenv("PACK_WORKLOAD_LATE_DLOPEN");
    EXPECT_TRUE(child.wait_for_line("ready", seconds(10)));
  }
  void run() {
    child.send_line("go");
    finish();
  }
  void finish() {
    EXPECT_TRUE(child.wait_for_line("done", seconds(30)));
    EXPECT_EQ(child.wait(), 0);
  }
  Child child;
  pid_t pid;
};

size_t alerts_for(const SeamRun& seam, const std::string& rule, pid_t pid) {
  return of_pid(seam.alerts(rule), pid).size();
}

bool wait_alert(const SeamRun& seam, const std::string& rule, pid_t pid) {
  return wait_until([&] { return alerts_for(seam, rule, pid) > 0; }, seconds(10));
}

// Whether `test` holds for some map on the host named `name` (maps are found by id, as bpftool
// does), given its fd.
bool some_map_named(const char* name, const std::function<bool(int fd)>& test) {
  bool found = false;
  for (uint32_t id = 0; bpf_map_get_next_id(id, &id) == 0;) {
    int fd = bpf_map_get_fd_by_id(id);
    if (fd < 0) continue;
    bpf_map_info info{};
    uint32_t len = sizeof info;
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && std::strcmp(info.name, name) == 0)
      found = found || test(fd);
    close(fd);
  }
  return found;
}

// Whether any seam_scope map holds `pid`.
bool in_some_scope_map(pid_t pid) {
  return some_map_named("seam_scope", [&](int fd) {
    uint32_t key = static_cast<uint32_t>(pid);
    uint64_t bits = 0;
    return bpf_map_lookup_elem(fd, &key, &bits) == 0;
  });
}

// The byte of `pid` in a seam_scope_any array that has it set (0: none has): the test the programs
// make before the hash (bpf-templates/seam_scope.h; kScopeExact with the bits, or 1).
uint8_t scope_array_byte(pid_t pid) {
  uint8_t found = 0;
  some_map_named("seam_scope_any", [&](int fd) {
    uint32_t key = static_cast<uint32_t>(pid) / 8;
    uint8_t bytes[8] = {};
    if (bpf_map_lookup_elem(fd, &key, bytes) == 0 && bytes[pid % 8] != 0) found = bytes[pid % 8];
    return found != 0;
  });
  return found;
}
bool marked_in_some_scope_array(pid_t pid) {
  return scope_array_byte(pid) != 0;
}

TEST(Scope, AWorkloadAlertsAndABystanderDoingTheSameWaitsDoesNot) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Workload bystander("futex", "20");
  Workload bystander_mmap("mmap", "128");  // a syscall of a few ms (the kernel zeroes 128 MiB)
  Workload workload("futex", "20", cudart());
  Workload workload_mmap("mmap", "128", cudart());
  SeamRun seam(dir.path(), {syscalls_pack(dir)});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  bystander.run();
  bystander_mmap.run();
  workload.run();
  workload_mmap.run();
  // The workload's alerts came after the bystanders ran: their silence is not a late attach.
  ASSERT_TRUE(wait_alert(seam, "futex_wait_slow", workload.pid)) << seam.stderr_text();
  ASSERT_TRUE(wait_alert(seam, "syscall_slow", workload_mmap.pid)) << seam.stderr_text();
  EXPECT_EQ(alerts_for(seam, "futex_wait_slow", bystander.pid), 0u);
  EXPECT_EQ(alerts_for(seam, "syscall_slow", bystander_mmap.pid), 0u);
}

TEST(Scope, AProcessThatDlopensTheCudaRuntimeLateEntersTheScope) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Workload w("futex", "20", {}, cudart());
  SeamRun seam(dir.path(), {syscalls_pack(dir)});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  EXPECT_FALSE(in_some_scope_map(w.pid)) << "in scope before it mapped a workload library";
  EXPECT_FALSE(marked_in_some_scope_array(w.pid));
  w.child.send_line("go");
  ASSERT_TRUE(w.child.wait_for_line("mapped", seconds(10)));
  ASSERT_TRUE(seam.wait_for_notice("scope-entered", "pid " + std::to_string(w.pid) + " ", seconds(10)))
      << seam.stderr_text();
  EXPECT_TRUE(in_some_scope_map(w.pid));
  // User space marks the processes it adds; the workload selector is the run's only one (bit 0),
  // so the byte holds that bit itself and the programs need no hash lookup.
  EXPECT_EQ(scope_array_byte(w.pid), runtime::kScopeExact | 1);
  w.child.send_line("go");
  w.finish();
  EXPECT_TRUE(wait_alert(seam, "futex_wait_slow", w.pid)) << seam.stderr_text();
}

TEST(Scope, AChildFollowsItsProcessThroughForkAndExec) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Workload w("spawn", "20", cudart());  // the child execs pack_workload without the library
  SeamRun seam(dir.path(), {syscalls_pack(dir)});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  w.child.send_line("go");
  std::optional<std::string> line = w.child.line_starting("child ", seconds(10));
  ASSERT_TRUE(line);
  pid_t child = static_cast<pid_t>(std::stol(line->substr(6)));
  w.finish();
  EXPECT_TRUE(wait_alert(seam, "futex_wait_slow", child)) << seam.stderr_text();
}

TEST(Scope, AnExitedProcessLeavesTheScopeMap) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Workload w("futex", "1", cudart());
  SeamRun seam(dir.path(), {syscalls_pack(dir)});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  ASSERT_TRUE(in_some_scope_map(w.pid));
  ASSERT_TRUE(marked_in_some_scope_array(w.pid));
  w.run();
  EXPECT_TRUE(wait_until([&] { return !in_some_scope_map(w.pid); }, seconds(5)));
  EXPECT_FALSE(marked_in_some_scope_array(w.pid));  // cleared before the key is deleted
}

// A process in one file's scope is in no other's: its byte holds its one bit (kScopeExact), and the
// file whose selector it does not match (another bit) gets no alert for the same waits.
TEST(Scope, AProcessInOneScopeIsNotInAnother) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Workload w("futex", "20");
  auto file = [&](const std::string& name, const std::string& pattern) {
    return dir.write(name + ".seam", "use syscalls\nscope comm \"" + pattern + "\"\nrule " + name +
                                         " on syscalls.futex where duration > 1ms\n    alert info \"waited "
                                         "{duration}\" with pid\n    limit 1000000 per 1s\n");
  };
  SeamRun seam(dir.path(), {file("in_scope", "pack_workload"), file("other_scope", "zz*")});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("scope-entered", "pid " + std::to_string(w.pid) + " ", seconds(10)))
      << seam.stderr_text();
  EXPECT_NE(scope_array_byte(w.pid) & runtime::kScopeExact, 0);
  w.run();
  EXPECT_TRUE(wait_alert(seam, "in_scope", w.pid)) << seam.stderr_text();
  EXPECT_EQ(alerts_for(seam, "other_scope", w.pid), 0u);  // the same waits, evaluated by one program
}

// Past seven scopes in a run, a process's bits no longer fit its byte (kScopeExact), and the
// programs look them up in the hash: eight comm selectors that all match the workload give it
// bits 0 to 7, and each file's rule still alerts for it; a ninth that does not match stays silent.
TEST(Scope, BitsPastTheByteAreLookedUpInTheHash) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Workload w("futex", "20");  // no workload library: in scope by its name alone
  const std::vector<std::string> matching = {"pack_workload", "pack_workloa*", "pack_work*", "pack_wor*",
                                             "pack_*",        "pack*",         "p*",         "*load"};
  std::vector<std::string> args;
  for (size_t i = 0; i <= matching.size(); ++i) {
    std::string pattern = i < matching.size() ? matching[i] : "seamnomatch*";
    args.push_back(
        dir.write("c" + std::to_string(i) + ".seam",
                  "use syscalls\nscope comm \"" + pattern + "\"\nrule r" + std::to_string(i) +
                      " on syscalls.futex where duration > 1ms\n    alert info \"waited {duration}\" "
                      "with pid\n    limit 1000000 per 1s\n"));
  }
  SeamRun seam(dir.path(), args);
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("scope-entered", "pid " + std::to_string(w.pid) + " ", seconds(10)))
      << seam.stderr_text();
  EXPECT_EQ(scope_array_byte(w.pid), 1);  // "look in the hash"
  w.run();
  for (size_t i = 0; i < matching.size(); ++i)
    EXPECT_TRUE(wait_alert(seam, "r" + std::to_string(i), w.pid)) << "r" << i << " (" << matching[i] << ")";
  EXPECT_EQ(alerts_for(seam, "r" + std::to_string(matching.size()), w.pid), 0u);
}

// A cgroup made for the test under the v2 mount (/sys/fs/cgroup/unified on hybrid hosts), with
// a child cgroup; processes are moved back to the root before the directories are removed.
struct TestCgroup {
  TestCgroup() {
    rel = "/seam_scope_test_" + std::to_string(getpid());
    dir = plan::cgroup_dir(rel);
    ok = mkdir(dir.c_str(), 0755) == 0 && mkdir((dir + "/child").c_str(), 0755) == 0;
  }
  ~TestCgroup() { remove(); }
  bool move(pid_t pid, const std::string& sub) const {
    std::ofstream f(dir + sub + "/cgroup.procs");
    f << pid << "\n";
    f.flush();
    return f.good();
  }
  void remove() {
    for (const char* sub : {"/child", ""}) {
      std::ifstream procs(dir + sub + "/cgroup.procs");
      for (pid_t p; procs >> p;) {
        std::ofstream root(plan::cgroup_v2_root() + "/cgroup.procs");
        root << p << "\n";
      }
      rmdir((dir + sub).c_str());
    }
  }
  std::string rel, dir;
  bool ok = false;
};

TEST(Scope, CgroupOnAParentCoversAChildCgroupsProcess) {
  SEAM_REQUIRE_ROOT();
  TestCgroup cg;
  ASSERT_TRUE(cg.ok) << "cannot make " << cg.dir << ": " << std::strerror(errno);
  TempDir dir;
  Workload inside("futex", "20");
  Workload outside("futex", "20");
  ASSERT_TRUE(cg.move(inside.pid, "/child"));
  SeamRun seam(dir.path(), {"--cgroup", cg.rel, host_futex_rule(dir, "inside", inside.pid),
                            host_futex_rule(dir, "outside", outside.pid)});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  outside.run();
  inside.run();
  ASSERT_TRUE(wait_alert(seam, "inside", inside.pid)) << seam.stderr_text();
  EXPECT_EQ(alerts_for(seam, "outside", outside.pid), 0u);
}

TEST(Scope, ACgroupThatDisappearsGetsANoticeAndTheOtherFilesRunOn) {
  SEAM_REQUIRE_ROOT();
  TestCgroup cg;
  ASSERT_TRUE(cg.ok) << "cannot make " << cg.dir << ": " << std::strerror(errno);
  TempDir dir;
  Workload w("futex", "20");
  std::string scoped =
      dir.write("scoped.seam", "use syscalls\nscope cgroup \"" + cg.rel +
                                   "/child\"\nrule scoped on syscalls.futex where duration > 1ms\n"
                                   "    alert info \"waited {duration}\" with pid\n");
  SeamRun seam(dir.path(), {scoped, host_futex_rule(dir, "host", w.pid)});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", seconds(60))) << seam.stderr_text();
  cg.remove();
  ASSERT_TRUE(seam.wait_for_notice("scope-cgroup-gone", cg.rel + "/child", seconds(10)))
      << seam.stderr_text();
  w.run();
  EXPECT_TRUE(wait_alert(seam, "host", w.pid)) << seam.stderr_text();
  EXPECT_TRUE(seam.running());
}

}  // namespace
}  // namespace seam::test
