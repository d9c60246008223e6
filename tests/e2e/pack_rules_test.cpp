// The default rule pack, rule by rule, on real workloads: each rule fires for a workload that
// should trigger it and stays silent for one that must not. A silent run is only trusted when
// a triggering workload run after it in the same seam session was seen, so the silence cannot
// come from probes that never attached. Alerts are matched by the workload's pid, since the
// kernel-wide rules (syscalls, sockets) see every process on the host.
//
// Rules whose probe kind this kernel lacks are checked for the "unavailable here" report that
// names them. Windowed rules are evaluated from the start of the window, so a p99 over 1m fires
// within seconds of the slow calls. The NCCL hang rule runs with its 60 s bound cut to 2 s.
//
// Also: every cuda, cuda_driver and nccl event attached to the real libraries (where installed),
// counting the calls a program makes through them.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "compiler/build/build_object.hpp"
#include "runtime/load/features.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using std::chrono::seconds;

std::string fixture(const std::string& name) {
  return std::string(SEAM_FIXTURE_DIR) + "/" + name;
}
std::string pack(const std::string& name, const std::string& pack_dir = "rules") {
  return std::string(SEAM_SOURCE_DIR) + "/" + pack_dir + "/" + name;
}

// A copy of a pack file without its rate limits. The limits count alerts per rule, host-wide, so
// on a busy host other processes' slow syscalls use them up before the workload's alert comes.
std::string pack_unlimited(const TempDir& dir, const std::string& name,
                           const std::string& pack_dir = "rules") {
  static const std::regex limit("limit [0-9]+ per [0-9]+[a-z]+");
  return dir.write(pack_dir + "/" + name,
                   std::regex_replace(read_file(pack(name, pack_dir)), limit, "limit 1000000 per 1s"));
}

std::vector<nlohmann::json> alerts_of(const SeamRun& seam, const std::string& rule, pid_t pid) {
  return of_pid(seam.alerts(rule), pid);
}

// The pack's syscall, socket and ioctl rules are `scope workload`: every workload maps the
// fixture CUDA runtime, as an inference server maps the real one (tests/e2e/scope_test.cpp has
// the bystander that does not).
const std::vector<std::string>& as_inference_workload(const std::vector<std::string>& argv) {
  setenv("PACK_WORKLOAD_DLOPEN", fixture("libcudart.so.12").c_str(), 1);
  return argv;
}

// A workload process (tests/fixtures/pack_workload.c or another fixture) that waits for "go".
struct Workload {
  explicit Workload(const std::vector<std::string>& argv)
      : child(as_inference_workload(argv)), pid_(child.pid()) {
    EXPECT_TRUE(child.wait_for_line("ready", seconds(10)));
  }
  // Lets it run and waits until it is done.
  void run() {
    go();
    finish();
  }
  void go() { child.send_line("go"); }
  void finish() {
    EXPECT_TRUE(child.wait_for_line("done", seconds(30)));
    EXPECT_EQ(child.wait(), 0);
  }
  pid_t pid() const { return pid_; }  // still known after the child was reaped
  Child child;
  pid_t pid_;
};

Workload pack_workload(const std::string& what, const std::string& arg) {
  return Workload({fixture("pack_workload"), what, arg});
}
Workload pack_workload_args(std::vector<std::string> args) {
  args.insert(args.begin(), fixture("pack_workload"));
  return Workload(args);
}

// seam on `files`, with every probe attached before the workloads start.
class PackRules : public ::testing::Test {
 protected:
  void start(const std::vector<std::string>& files) {
    seam_ = std::make_unique<SeamRun>(dir_.path(), files);
    ASSERT_TRUE(seam_->wait_for_notice("ready", "probes attached", seconds(60))) << seam_->stderr_text();
  }
  // Waits until `rule` has `n` alerts for `pid`; returns them.
  std::vector<nlohmann::json> wait_alerts(const std::string& rule, pid_t pid, size_t n) {
    wait_until([&] { return alerts_of(*seam_, rule, pid).size() >= n; }, seconds(10));
    return alerts_of(*seam_, rule, pid);
  }
  // Asserts the probe-unavailable notice names `rule`, when the kernel lacks `feature`.
  void expect_unavailable_names(plan::Feature feature, const std::string& rule) {
    if (runtime::probe_features().available(feature)) return;
    bool named = false;
    for (const nlohmann::json& n : seam_->notices("probe-unavailable"))
      if (n.value("rule", "") == rule && n.value("message", "").find("unavailable here") != std::string::npos)
        named = true;
    EXPECT_TRUE(named) << "no probe-unavailable notice names " << rule << "\n" << seam_->stderr_text();
  }
  TempDir dir_;
  std::unique_ptr<SeamRun> seam_;
};

// ---------------------------------------------------------------- syscalls.seam

TEST_F(PackRules, FutexWaitOver1msFiresForTheWaitingThread) {
  SEAM_REQUIRE_ROOT();
  Workload w = pack_workload("futex", "20");
  start({pack_unlimited(dir_, "syscalls.seam")});
  w.run();
  std::vector<nlohmann::json> alerts = wait_alerts("futex_wait_slow", w.pid(), 1);
  ASSERT_GE(alerts.size(), 1u) << seam_->stderr_text();
  bool waiter_seen = false;
  for (const nlohmann::json& a : alerts) {
    EXPECT_EQ(a.value("comm", ""), "pack_workload") << a.dump();
    if (a.value("tid", 0) != w.pid() && a["fields"].value("duration", 0) >= 20'000'000) waiter_seen = true;
  }
  EXPECT_TRUE(waiter_seen) << "the thread blocked 20 ms on the mutex is not among the alerts";
}

TEST_F(PackRules, FutexRuleSilentWithoutContention) {
  SEAM_REQUIRE_ROOT();
  Workload quiet = pack_workload("mutex", "200000");  // lock/unlock without any futex syscall
  Workload loud = pack_workload("futex", "20");
  start({pack_unlimited(dir_, "syscalls.seam")});
  quiet.run();
  loud.run();
  ASSERT_GE(wait_alerts("futex_wait_slow", loud.pid(), 1).size(), 1u) << seam_->stderr_text();
  EXPECT_EQ(alerts_of(*seam_, "futex_wait_slow", quiet.pid()).size(), 0u);
}

// The numbers of syscall_slow's alerts for `pid` that are about syscall `name` (id prints by name).
size_t syscall_alerts(const std::vector<nlohmann::json>& alerts, const std::string& name) {
  size_t n = 0;
  for (const nlohmann::json& a : alerts) n += a["fields"]["id"] == name;
  return n;
}

TEST_F(PackRules, SlowSyscallFiresForALongMmap) {
  SEAM_REQUIRE_ROOT();
  Workload w = pack_workload("mmap", "128");  // MAP_POPULATE: the kernel zeroes 128 MiB in the call
  start({pack_unlimited(dir_, "syscalls.seam")});
  w.run();
  wait_until([&] { return syscall_alerts(alerts_of(*seam_, "syscall_slow", w.pid()), "mmap") >= 1; },
             seconds(10));
  std::vector<nlohmann::json> alerts = alerts_of(*seam_, "syscall_slow", w.pid());
  EXPECT_EQ(syscall_alerts(alerts, "mmap"), 1u) << seam_->stderr_text();
  for (const nlohmann::json& a : alerts)
    if (a["fields"]["id"] == "mmap") {
      EXPECT_GT(a["fields"].value("duration", 0), 1'000'000);
    }
}

TEST_F(PackRules, SlowSyscallSilentForAShortMmapAndForWaits) {
  SEAM_REQUIRE_ROOT();
  Workload quiet = pack_workload("mmap", "1");
  Workload waits = pack_workload("futex", "20");  // futex and nanosleep are waits: left out
  Workload loud = pack_workload("mmap", "128");
  start({pack_unlimited(dir_, "syscalls.seam")});
  quiet.run();
  waits.run();
  loud.run();
  wait_until([&] { return syscall_alerts(alerts_of(*seam_, "syscall_slow", loud.pid()), "mmap") >= 1; },
             seconds(10));
  ASSERT_EQ(syscall_alerts(alerts_of(*seam_, "syscall_slow", loud.pid()), "mmap"), 1u)
      << seam_->stderr_text();
  EXPECT_EQ(syscall_alerts(alerts_of(*seam_, "syscall_slow", quiet.pid()), "mmap"), 0u);
  EXPECT_EQ(syscall_alerts(alerts_of(*seam_, "syscall_slow", waits.pid()), "futex"), 0u);
  EXPECT_EQ(syscall_alerts(alerts_of(*seam_, "syscall_slow", waits.pid()), "nanosleep"), 0u);
}

// A slow syscall the pack's syscall_slow does not name (mlock) is seen only with the opt-in rule
// on every syscall (rules-opt-in/syscall_any_slow.seam); a named one (mmap) by both.
TEST_F(PackRules, OnlyTheOptInRuleSeesASlowSyscallThePackDoesNotName) {
  SEAM_REQUIRE_ROOT();
  Workload locks = pack_workload("mlock", "128");
  Workload maps = pack_workload("mmap", "128");
  start(
      {pack_unlimited(dir_, "syscalls.seam"), pack_unlimited(dir_, "syscall_any_slow.seam", "rules-opt-in")});
  locks.run();
  maps.run();
  ASSERT_TRUE(wait_until(
      [&] { return syscall_alerts(alerts_of(*seam_, "syscall_any_slow", locks.pid()), "mlock") >= 1; },
      seconds(10)))
      << seam_->stderr_text();
  ASSERT_TRUE(wait_until(
      [&] {
        return syscall_alerts(alerts_of(*seam_, "syscall_any_slow", maps.pid()), "mmap") >= 1 &&
               syscall_alerts(alerts_of(*seam_, "syscall_slow", maps.pid()), "mmap") >= 1;
      },
      seconds(10)))
      << seam_->stderr_text();
  // The mmap alerts came after the mlock was settled: syscall_slow did not see the mlock.
  EXPECT_EQ(syscall_alerts(alerts_of(*seam_, "syscall_slow", locks.pid()), "mlock"), 0u);
}

// The whole pack, started cold (empty object cache): its C is built in parts, one clang per CPU
// that seam may use, at once, and linked into one object (compiler/build/build_object.hpp); the
// linked object's rules fire as the whole one's do. Each clang is told its part on standard input
// (it was started before the program, compiler/build/clang_prestart.hpp): the wrapper logs that
// with the command line.
TEST_F(PackRules, TheWholePackStartsColdWithOneClangPerCpuAndItsRulesFire) {
  SEAM_REQUIRE_ROOT();
  const std::string clang = build::find_clang();
  ASSERT_FALSE(clang.empty());
  const std::string log = dir_.path() + "/clang-runs";
  std::string wrapper = dir_.write(
      "clang", "#!/bin/sh\nmain=$(cat)\necho \"$* <<< $(printf '%s' \"$main\" | tr '\\n' ' ')\" >> " + log +
                   "\nprintf '%s\\n' \"$main\" | exec " + clang + " \"$@\"\n");
  ASSERT_EQ(chmod(wrapper.c_str(), 0755), 0);
  std::vector<std::string> files;
  for (const std::string& path : pack_rule_files())
    files.push_back(pack_unlimited(dir_, std::filesystem::path(path).filename()));
  unsetenv("SEAM_BUILD_PARTS");
  setenv("SEAM_CLANG", wrapper.c_str(), 1);
  setenv("SEAM_CACHE_DIR", (dir_.path() + "/cache").c_str(), 1);
  Workload w = pack_workload("mmap", "128");
  start(files);
  unsetenv("SEAM_CLANG");
  unsetenv("SEAM_CACHE_DIR");
  w.run();
  wait_until([&] { return syscall_alerts(alerts_of(*seam_, "syscall_slow", w.pid()), "mmap") >= 1; },
             seconds(10));
  EXPECT_EQ(syscall_alerts(alerts_of(*seam_, "syscall_slow", w.pid()), "mmap"), 1u) << seam_->stderr_text();

  const int parts = build::build_parts(build::kPartsFromBytes);  // the pack is larger
  std::set<std::string> runs;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) runs.insert(line);
  ASSERT_EQ(runs.size(), static_cast<size_t>(parts)) << "clang ran for: " << ::testing::PrintToString(runs);
  if (parts > 1)
    for (int part = 0; part < parts; ++part) {
      std::string flags =
          "#define SEAM_PARTS " + std::to_string(parts) + " #define SEAM_PART " + std::to_string(part) + " ";
      EXPECT_TRUE(std::any_of(runs.begin(), runs.end(),
                              [&](const std::string& r) { return r.find(flags) != std::string::npos; }))
          << "no clang built part " << part << ": " << ::testing::PrintToString(runs);
    }
}

// ---------------------------------------------------------------- tcp_send.seam

TEST_F(PackRules, SocketSendStallFiresForASlowReader) {
  SEAM_REQUIRE_ROOT();
  Workload w = pack_workload("send", "1500");  // the reader starts reading after 1.5 s
  start({pack_unlimited(dir_, "tcp_send.seam")});
  w.run();
  std::vector<nlohmann::json> alerts = wait_alerts("socket_send_stall", w.pid(), 1);
  ASSERT_EQ(alerts.size(), 1u) << seam_->stderr_text();
  EXPECT_GE(alerts[0]["fields"].value("duration", 0), 1'000'000'000) << alerts[0].dump();
  EXPECT_NE(alerts[0].value("message", "").find("raw_syscalls fallback"), std::string::npos);
  // The kprobe rule says it is unavailable here, by name, instead of failing.
  expect_unavailable_names(plan::Feature::Kprobe, "tcp_send_stall_kprobe");
}

TEST_F(PackRules, SocketSendStallSilentForAFastReader) {
  SEAM_REQUIRE_ROOT();
  Workload quiet = pack_workload("send", "0");
  Workload loud = pack_workload("send", "1500");
  start({pack_unlimited(dir_, "tcp_send.seam")});
  quiet.run();
  loud.run();
  ASSERT_EQ(wait_alerts("socket_send_stall", loud.pid(), 1).size(), 1u) << seam_->stderr_text();
  EXPECT_EQ(alerts_of(*seam_, "socket_send_stall", quiet.pid()).size(), 0u);
}

// tcp_send_p99_syscall aggregates by cgroup. On a host with cgroup v1 only every process is in
// cgroup 1, so the workload's series is shared and only the trigger is tested.
TEST_F(PackRules, SocketSendP99FiresForASlowReaderInTheWorkloadsCgroup) {
  SEAM_REQUIRE_ROOT();
  Workload w = pack_workload("send", "1500");
  start({pack_unlimited(dir_, "tcp_send.seam")});
  w.run();
  auto fired = [&] {
    for (const nlohmann::json& a : seam_->alerts("tcp_send_p99_syscall"))
      if (a["fields"].value("value", 0) > 1'000'000'000) return true;
    return false;
  };
  EXPECT_TRUE(wait_until(fired, seconds(10))) << seam_->stderr_text();
}

// ---------------------------------------------------------------- nvidia.seam

TEST_F(PackRules, NvidiaIoctlKprobeRuleIsReportedUnavailableAndTheFallbacksStaySilentForFastIoctls) {
  SEAM_REQUIRE_ROOT();
  // A companion rule counts the workload's FIONREAD (0x541B) calls through the same probe, so
  // the fallback's silence is known to come from judging 100 fast calls.
  std::string seen = dir_.write("seen.seam",
                                "use nvidia\n"
                                "rule fionread on nvidia.ioctl_call where cmd == 0x541B and ret == 0\n"
                                "  alert info \"ioctl {cmd} on fd {fd}\" with fd, cmd\n");
  Workload w = pack_workload("ioctl", "100");
  start({pack_unlimited(dir_, "nvidia.seam"), seen});
  w.run();
  std::vector<nlohmann::json> calls = wait_alerts("fionread", w.pid(), 100);
  EXPECT_EQ(calls.size(), 100u) << seam_->stderr_text();
  for (const nlohmann::json& c : calls) EXPECT_EQ(c["fields"].value("cmd", 0), 0x541B) << c.dump();
  EXPECT_EQ(alerts_of(*seam_, "ioctl_slow_libc", w.pid()).size(), 0u);
  EXPECT_EQ(alerts_of(*seam_, "ioctl_slow_syscall", w.pid()).size(), 0u);
  expect_unavailable_names(plan::Feature::Kprobe, "nvidia_ioctl_slow");
}

// The pack's nvidia rules with the 1 ms bound cut to 0, so that fast ioctls on a file named like
// an NVIDIA device show what the fallbacks' filters (fd_is, the command's type byte) let through.
std::string nvidia_rules_without_bound(const TempDir& dir) {
  std::string text = read_file(pack_unlimited(dir, "nvidia.seam"));
  for (size_t at = text.find("duration > 1ms"); at != std::string::npos; at = text.find("duration > 1ms", at))
    text.replace(at, 14, "duration >= 0ns");
  return dir.write("nvidia.seam", text);
}

TEST_F(PackRules, NvidiaIoctlFallbacksCountOnlyNvidiaCommandsOnNvidiaDeviceFiles) {
  SEAM_REQUIRE_ROOT();
  TempDir files;
  // 7 'F' ioctls on "other", 7 'T' ioctls on "nvidiactl", then the 7 that match.
  Workload w = pack_workload_args({"nvioctl", "7", files.path()});
  start({nvidia_rules_without_bound(dir_)});
  w.run();
  std::vector<nlohmann::json> libc = wait_alerts("ioctl_slow_libc", w.pid(), 7);
  std::vector<nlohmann::json> sys = wait_alerts("ioctl_slow_syscall", w.pid(), 7);
  EXPECT_EQ(libc.size(), 7u) << seam_->stderr_text();
  EXPECT_EQ(sys.size(), 7u) << seam_->stderr_text();
  for (const nlohmann::json& a : libc) {
    EXPECT_EQ(a["fields"].value("cmd", 0u), 0xC010462Au) << a.dump();  // _IOWR('F', 0x2a, char[16])
    EXPECT_EQ(a["fields"].value("cmd_nr", 0), 0x2a) << a.dump();
  }
}

// ---------------------------------------------------------------- malloc.seam

// Python calling the fixture libcudart's cudaMalloc COUNT times with SIZE bytes; the fixture
// sleeps SEAM_FAKE_MALLOC_US in each call.
// `linger`: after "done" it waits for one more line before exiting.
// `warm_up`: once told to go, one cudaMalloc of 1 byte first: a process's first traced call pays
// the kernel's first uprobe hit in it (its out-of-line page, the return trampoline), over 100 us
// on a slow VM.
Workload python_mallocs(int count, long size, int sleep_us, bool linger = false, bool warm_up = false) {
  return Workload({"/usr/bin/env", "SEAM_FAKE_MALLOC_US=" + std::to_string(sleep_us), test_python(), "-c",
                   "import ctypes, sys\n"
                   "lib = ctypes.CDLL(sys.argv[1])\n"
                   "print('ready', flush=True); sys.stdin.readline()\n"
                   "p = ctypes.c_void_p()\n"
                   "if sys.argv[5] == '1': lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(1))\n"
                   "for _ in range(int(sys.argv[2])): lib.cudaMalloc(ctypes.byref(p), "
                   "ctypes.c_size_t(int(sys.argv[3])))\n"
                   "print('done', flush=True)\n"
                   "if sys.argv[4] == '1': sys.stdin.readline()\n",
                   fixture("libcudart.so.12"), std::to_string(count), std::to_string(size),
                   linger ? "1" : "0", warm_up ? "1" : "0"});
}

bool stack_has(const nlohmann::json& alert, const std::string& symbol) {
  if (!alert.contains("ustack")) return false;
  for (const nlohmann::json& frame : alert["ustack"])
    if (frame.value("symbol", "") == symbol) return true;
  return false;
}

TEST_F(PackRules, SlowMallocFiresWithSizeAndStack) {
  SEAM_REQUIRE_ROOT();
  Workload w = python_mallocs(3, 1 << 20, 2000, /*linger=*/true);
  start({pack("malloc.seam")});
  ASSERT_TRUE(seam_->wait_for_notice("attached", fixture("libcudart.so.12"), seconds(10)))
      << seam_->stderr_text();
  w.go();
  // The process stays alive until its alerts are read, so that its stacks are named from its own
  // maps: a process gone before seam reads its records is the symbolizer's race, not this rule's.
  std::vector<nlohmann::json> slow = wait_alerts("slow_malloc", w.pid(), 3);
  w.child.send_line("exit");
  w.finish();
  ASSERT_EQ(slow.size(), 3u) << seam_->stderr_text();
  for (const nlohmann::json& a : slow) {
    EXPECT_EQ(a["fields"].value("size", 0), 1 << 20) << a.dump();
    EXPECT_GE(a["fields"].value("duration", 0), 2'000'000) << a.dump();
    EXPECT_TRUE(stack_has(a, "cudaMalloc")) << a.dump();
  }
  // Every cudaMalloc is also reported (info) by the steady-state rule.
  EXPECT_EQ(wait_alerts("malloc_in_steady_state", w.pid(), 3).size(), 3u);
}

TEST_F(PackRules, SlowMallocSilentForFastMallocs) {
  SEAM_REQUIRE_ROOT();
  Workload w = python_mallocs(3, 4096, 0, /*linger=*/false, /*warm_up=*/true);
  start({pack("malloc.seam")});
  ASSERT_TRUE(seam_->wait_for_notice("attached", fixture("libcudart.so.12"), seconds(10)))
      << seam_->stderr_text();
  w.run();
  // The steady-state rule reports each call (the warm-up's too), so all three were judged.
  ASSERT_EQ(wait_alerts("malloc_in_steady_state", w.pid(), 4).size(), 4u) << seam_->stderr_text();
  for (const nlohmann::json& a : alerts_of(*seam_, "slow_malloc", w.pid()))
    EXPECT_NE(a["fields"].value("size", 0), 4096) << a.dump();
}

// ---------------------------------------------------------------- gil_wait.seam

// gil_wait_p99 is windowed (not evaluated by `seam run` yet); its event is checked here: a
// thread waits for the GIL while another holds it through a 50 ms call made with ctypes.PyDLL.
TEST_F(PackRules, GilWaitEventMeasuresTheWaitForTheGil) {
  SEAM_REQUIRE_ROOT();
  Workload w({test_python(), "-c",
              "import ctypes, sys, threading, time\n"
              "held = ctypes.PyDLL(sys.argv[1]); held.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]\n"
              "print('ready', flush=True); sys.stdin.readline()\n"
              "started = threading.Event()\n"
              "def spin():\n"
              "    started.set()\n"
              "    for _ in range(3000000): pass\n"
              "t = threading.Thread(target=spin); t.start(); started.wait()\n"
              "held.cudaStreamSynchronize(ctypes.c_void_p(50000))\n"
              "t.join()\n"
              "print('done', flush=True)\n",
              fixture("libcudart.so.12")});
  std::string rules = dir_.write(
      "gil.seam",
      "use python\n"
      "rule long_gil_wait on python.gil_wait where duration > 20ms alert info \"waited {duration}\"\n");
  start({rules});
  ASSERT_TRUE(seam_->wait_for_notice("attached", "libpython", seconds(10))) << seam_->stderr_text();
  w.run();
  std::vector<nlohmann::json> waits = wait_alerts("long_gil_wait", w.pid(), 1);
  ASSERT_GE(waits.size(), 1u) << seam_->stderr_text();
  EXPECT_GE(waits[0]["fields"].value("duration", 0), 20'000'000);
}

// ---------------------------------------------------------------- windowed rules

// A windowed rule's alerts for one process: it aggregates `by pid`, so the pid is a label.
std::vector<nlohmann::json> window_alerts_of(const SeamRun& seam, const std::string& rule, pid_t pid) {
  std::vector<nlohmann::json> mine;
  for (const nlohmann::json& a : seam.alerts(rule))
    if (a.value("pid", 0) == pid) mine.push_back(a);  // a windowed alert carries its series' pid
  return mine;
}

// cuda_caller making COUNT syncs of US microseconds each through the fixture libcudart.
Workload syncs(int count, int us) {
  return Workload(
      {fixture("cuda_caller"), fixture("libcudart.so.12"), std::to_string(count), std::to_string(us)});
}

TEST_F(PackRules, SyncP99FiresForSlowSyncs) {
  SEAM_REQUIRE_ROOT();
  Workload w = syncs(10, 60000);
  start({pack_unlimited(dir_, "sync_latency.seam")});
  w.run();
  wait_until([&] { return !window_alerts_of(*seam_, "sync_p99", w.pid()).empty(); }, seconds(10));
  std::vector<nlohmann::json> alerts = window_alerts_of(*seam_, "sync_p99", w.pid());
  ASSERT_GE(alerts.size(), 1u) << seam_->stderr_text();
  EXPECT_GT(alerts[0]["fields"].value("value", 0), 50'000'000) << alerts[0].dump();
}

TEST_F(PackRules, SyncP99SilentForFastSyncs) {
  SEAM_REQUIRE_ROOT();
  Workload quiet = syncs(50, 2000);
  Workload loud = syncs(10, 60000);
  start({pack_unlimited(dir_, "sync_latency.seam")});
  quiet.run();
  loud.run();
  wait_until([&] { return !window_alerts_of(*seam_, "sync_p99", loud.pid()).empty(); }, seconds(10));
  ASSERT_GE(window_alerts_of(*seam_, "sync_p99", loud.pid()).size(), 1u) << seam_->stderr_text();
  EXPECT_EQ(window_alerts_of(*seam_, "sync_p99", quiet.pid()).size(), 0u);
}

TEST_F(PackRules, LaunchRateFiresForAProcessLaunchingOver100kPerSecond) {
  SEAM_REQUIRE_ROOT();
  const std::string real = "/usr/local/cuda/lib/libcudart.so.13";
  if (!std::filesystem::exists(real)) GTEST_SKIP() << real << " is not installed here";
  // Without a GPU cudaLaunchKernel fails at once, so a loop makes a few 100k calls a second.
  Workload quiet({fixture("cuda_api_caller"), "cudart", real, "1000"});
  Workload loud({fixture("cuda_api_caller"), "cudart", real, "1500000"});
  start({pack_unlimited(dir_, "launch_rate.seam")});
  quiet.run();
  loud.run();
  wait_until([&] { return !window_alerts_of(*seam_, "launch_rate", loud.pid()).empty(); }, seconds(15));
  std::vector<nlohmann::json> alerts = window_alerts_of(*seam_, "launch_rate", loud.pid());
  ASSERT_GE(alerts.size(), 1u) << seam_->stderr_text();
  EXPECT_GT(alerts[0]["fields"].value("value", 0), 100000) << alerts[0].dump();
  EXPECT_EQ(window_alerts_of(*seam_, "launch_rate", quiet.pid()).size(), 0u);
}

// Python threads contending for the GIL: one spins while the other holds the GIL through a
// 50 ms call made with ctypes.PyDLL (or, with `contend` false, the call alone, no other thread).
Workload gil_contention(bool contend) {
  return Workload(
      {test_python(), "-c",
       "import ctypes, sys, threading\n"
       "held = ctypes.PyDLL(sys.argv[1]); held.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]\n"
       "print('ready', flush=True); sys.stdin.readline()\n"
       "started = threading.Event()\n"
       "def spin():\n"
       "    started.set()\n"
       "    for _ in range(3000000): pass\n"
       "if sys.argv[2] == '1':\n"
       "    t = threading.Thread(target=spin); t.start(); started.wait()\n"
       "held.cudaStreamSynchronize(ctypes.c_void_p(50000))\n"
       "if sys.argv[2] == '1': t.join()\n"
       "print('done', flush=True)\n",
       fixture("libcudart.so.12"), contend ? "1" : "0"});
}

TEST_F(PackRules, GilWaitP99FiresWhenAThreadWaitsForTheGil) {
  SEAM_REQUIRE_ROOT();
  Workload quiet = gil_contention(false);
  Workload loud = gil_contention(true);
  start({pack_unlimited(dir_, "gil_wait.seam")});
  ASSERT_TRUE(seam_->wait_for_notice("attached", "libpython", seconds(10))) << seam_->stderr_text();
  quiet.run();
  loud.run();
  wait_until([&] { return !window_alerts_of(*seam_, "gil_wait_p99", loud.pid()).empty(); }, seconds(10));
  std::vector<nlohmann::json> alerts = window_alerts_of(*seam_, "gil_wait_p99", loud.pid());
  ASSERT_GE(alerts.size(), 1u) << seam_->stderr_text();
  EXPECT_GT(alerts[0]["fields"].value("value", 0), 1'000'000) << alerts[0].dump();
  EXPECT_EQ(window_alerts_of(*seam_, "gil_wait_p99", quiet.pid()).size(), 0u);
}

// ---------------------------------------------------------------- mem.seam and faults.seam

// page_fault_storm is windowed (not evaluated by `seam run` yet); its event is checked here.
TEST_F(PackRules, PageFaultEventSeesEveryFreshPageTouched) {
  SEAM_REQUIRE_ROOT();
  Workload w = pack_workload("faults", "2000");
  std::string rules = dir_.write(
      "faults.seam", "use mem\nrule fault on mem.page_fault where pid == " + std::to_string(w.pid()) +
                         " alert info \"fault at {address}\" with address, ip, error_code\n");
  start({rules});
  w.run();
  std::vector<nlohmann::json> faults = wait_alerts("fault", w.pid(), 2000);
  ASSERT_GE(faults.size(), 2000u) << seam_->stderr_text();
  // Read from the tracepoint's arguments (a raw tracepoint here: raw_tracepoint_forms.hpp): the
  // error code's bits (1 write, 2 user mode), each fresh page's own address, and the one store
  // instruction that touches them all (the faulting ip, read through the saved registers).
  size_t user_writes = 0;
  std::set<uint64_t> pages;
  std::map<uint64_t, size_t> ips;
  for (const nlohmann::json& f : faults) {
    user_writes += (f["fields"].value("error_code", 0) & 6) == 6;
    pages.insert(f["fields"].value("address", uint64_t{0}) >> 12);
    ++ips[f["fields"].value("ip", uint64_t{0})];
  }
  EXPECT_GE(user_writes, 2000u);
  EXPECT_GE(pages.size(), 2000u);
  auto most = std::max_element(ips.begin(), ips.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  EXPECT_NE(most->first, 0u);
  EXPECT_GE(most->second, 2000u) << "faults by ip: " << ips.size();
}

// A memory cgroup with a limit, v2 (memory.max) or v1 (memory.limit_in_bytes); removed at the end.
class MemoryCgroup {
 public:
  explicit MemoryCgroup(int64_t limit_bytes) {
    const std::pair<std::string, std::string> kinds[] = {{"/sys/fs/cgroup", "memory.max"},
                                                         {"/sys/fs/cgroup/memory", "memory.limit_in_bytes"}};
    for (const auto& [root, file] : kinds) {
      bool v2 = file == "memory.max";
      if (!std::filesystem::exists(root + (v2 ? "/cgroup.controllers" : "/memory.usage_in_bytes"))) continue;
      std::string path = root + "/seam-pack-test-" + std::to_string(getpid());
      std::error_code ec;
      std::filesystem::create_directory(path, ec);
      if (ec || !write_to(path + "/" + file, std::to_string(limit_bytes))) continue;
      path_ = path;
      return;
    }
  }
  ~MemoryCgroup() {
    if (!path_.empty()) ::rmdir(path_.c_str());
  }
  MemoryCgroup(const MemoryCgroup&) = delete;
  MemoryCgroup& operator=(const MemoryCgroup&) = delete;
  bool ok() const { return !path_.empty(); }
  bool add(pid_t pid) const { return write_to(path_ + "/cgroup.procs", std::to_string(pid)); }

 private:
  static bool write_to(const std::string& file, const std::string& text) {
    FILE* f = std::fopen(file.c_str(), "w");
    if (!f) return false;
    bool ok = std::fputs(text.c_str(), f) >= 0;
    return std::fclose(f) == 0 && ok;
  }
  std::string path_;
};

TEST_F(PackRules, MemcgReclaimStallFiresForAWriterAtItsCgroupsLimit) {
  SEAM_REQUIRE_ROOT();
  MemoryCgroup cgroup(32 << 20);
  if (!cgroup.ok()) GTEST_SKIP() << "no memory cgroup can be made here";
  // Both write 256 MiB through the page cache on disk (not tmpfs, which cannot be reclaimed
  // without swap); only the one inside the 32 MiB cgroup has to reclaim.
  std::string file = std::string(SEAM_BINARY_DIR) + "/pack-test-fill-";
  Workload quiet = pack_workload_args({"write", "256", file + "quiet"});
  Workload loud = pack_workload_args({"write", "256", file + "loud"});
  ASSERT_TRUE(cgroup.add(loud.pid()));
  start({pack_unlimited(dir_, "mem.seam")});
  quiet.run();
  loud.run();
  std::vector<nlohmann::json> alerts = wait_alerts("memcg_reclaim_stall", loud.pid(), 1);
  ASSERT_GE(alerts.size(), 1u) << seam_->stderr_text();
  EXPECT_GT(alerts[0]["fields"].value("duration", 0), 4'000'000) << alerts[0].dump();
  EXPECT_EQ(alerts_of(*seam_, "memcg_reclaim_stall", quiet.pid()).size(), 0u);
}

TEST_F(PackRules, PageFaultStormFiresForAProcessFaultingFast) {
  SEAM_REQUIRE_ROOT();
  Workload quiet = pack_workload("faults", "20000");
  Workload loud = pack_workload("faults", "1500000");  // 6 GiB touched, 64 MiB at a time
  // The pack's 100k faults/s is more than one CPU faults on a slow VM (a first-touch fault took
  // 16 us on a PTI-mitigated one: 62k/s), so the rule runs here at 20k/s: the quiet process's
  // 20,000 faults average 2k/s over the 10 s window, the loud one's at least 60k/s.
  std::string rules = pack_unlimited(dir_, "faults.seam");
  std::string text = read_file(rules);
  ASSERT_NE(text.find("over 10s > 100000"), std::string::npos) << text;
  text.replace(text.find("over 10s > 100000"), 17, "over 10s > 20000");
  dir_.write("rules/faults.seam", text);
  start({rules});
  quiet.run();
  loud.run();
  wait_until([&] { return !window_alerts_of(*seam_, "page_fault_storm", loud.pid()).empty(); }, seconds(30));
  std::vector<nlohmann::json> alerts = window_alerts_of(*seam_, "page_fault_storm", loud.pid());
  ASSERT_GE(alerts.size(), 1u) << seam_->stderr_text();
  EXPECT_GT(alerts[0]["fields"].value("value", 0), 20000) << alerts[0].dump();
  EXPECT_EQ(window_alerts_of(*seam_, "page_fault_storm", quiet.pid()).size(), 0u);
}

// ---------------------------------------------------------------- offcpu.seam

// Two busy threads pinned to one CPU: each waits, runnable, while the other runs its slice.
Workload preempted_pair(const std::string& a, const std::string& b) {
  return pack_workload_args({"preempt", "1500", a, b});
}

TEST_F(PackRules, OffcpuP99FiresForInferenceThreadsPreemptedOnOneCpu) {
  SEAM_REQUIRE_ROOT();
  // The same contention for threads not named like inference threads must not count.
  Workload quiet = preempted_pair("batchjob", "batchjob");
  Workload loud = preempted_pair("python3", "python3");
  start({pack_unlimited(dir_, "offcpu.seam")});
  quiet.run();
  loud.run();
  wait_until([&] { return !window_alerts_of(*seam_, "offcpu_p99", loud.pid()).empty(); }, seconds(10));
  std::vector<nlohmann::json> alerts = window_alerts_of(*seam_, "offcpu_p99", loud.pid());
  ASSERT_GE(alerts.size(), 1u) << seam_->stderr_text();
  EXPECT_GT(alerts[0]["fields"].value("value", 0), 100'000) << alerts[0].dump();
  EXPECT_EQ(alerts[0].value("comm", ""), "python3") << alerts[0].dump();  // the series names its task
  EXPECT_EQ(window_alerts_of(*seam_, "offcpu_p99", quiet.pid()).size(), 0u);
}

// At the switch back in, the CPU runs the thread leaving it; the span's pid, tid and comm must
// still be the preempted thread's (saved at the switch-out), so prev_pid (read there) is its tid.
TEST_F(PackRules, OffcpuSpanReportsThePreemptedThreadNotTheOneLeavingTheCpu) {
  SEAM_REQUIRE_ROOT();
  std::string rules = dir_.write("seen.seam",
                                 "use sched\n"
                                 "rule seen on sched.offcpu where prev_state == 0 and comm == \"seamspin\"\n"
                                 "  alert info \"off {duration}\" with prev_pid\n");
  Workload w = preempted_pair("seamspin", "seamother");
  start({rules});
  w.run();
  std::vector<nlohmann::json> alerts = wait_alerts("seen", w.pid(), 3);
  ASSERT_GE(alerts.size(), 3u) << seam_->stderr_text();
  for (const nlohmann::json& a : alerts) {
    EXPECT_EQ(a.value("comm", ""), "seamspin") << a.dump();
    EXPECT_EQ(a["fields"].value("prev_pid", 0), a.value("tid", -1)) << a.dump();
  }
}

// sched_waking has no struct of its own (its class's is trace_event_raw_sched_wakeup_template):
// runq reads its fields by name. The workload's main thread wakes the thread waiting on the
// mutex; the span is keyed by the woken thread and its builtin tid is the waker's, also when the
// waiter's CPU is idle (where sched_wakeup would have run in the idle task, and this test, which
// filters on the waker, saw nothing on a quiet host).
TEST_F(PackRules, RunqReadsTheWakeupThroughItsEventClassStruct) {
  SEAM_REQUIRE_ROOT();
  Workload w = pack_workload("futex", "20");
  std::string rules =
      dir_.write("runq.seam", "use sched\nrule rq on sched.runq where tid == " + std::to_string(w.pid()) +
                                  " and next_comm startswith \"pack_work\" alert info \"woken\""
                                  " with prio, target_cpu, next_pid, next_comm\n");
  start({rules});
  w.run();
  std::vector<nlohmann::json> alerts = wait_alerts("rq", w.pid(), 1);
  ASSERT_GE(alerts.size(), 1u) << seam_->stderr_text();
  for (const nlohmann::json& a : alerts) {
    EXPECT_EQ(a["fields"].value("prio", 0), 120) << a.dump();  // a normal thread at nice 0
    EXPECT_GE(a["fields"].value("target_cpu", -1), 0) << a.dump();
    EXPECT_NE(a["fields"].value("next_pid", 0), w.pid()) << a.dump();  // the waiter, not main
    EXPECT_EQ(a["fields"].value("next_comm", ""), "pack_workload") << a.dump();
  }
}

// ---------------------------------------------------------------- nccl.seam

// Python calling the fixture libnccl's ncclAllReduce, which blocks for `ms` milliseconds.
Workload python_all_reduce(long ms) {
  return Workload({test_python(), "-c",
                   "import ctypes, sys\n"
                   "lib = ctypes.CDLL(sys.argv[1])\n"
                   "print('ready', flush=True); sys.stdin.readline()\n"
                   "lib.ncclAllReduce(None, None, ctypes.c_size_t(int(sys.argv[2])), 0, 0, None, None)\n"
                   "print('done', flush=True)\n",
                   fixture("libnccl.so.2"), std::to_string(ms)});
}

// The pack's NCCL rules with the hang bound shortened from 60 s to 2 s, so a test takes seconds.
std::string nccl_rules_with_short_bound(const TempDir& dir) {
  std::string text = read_file(pack("nccl.seam"));
  for (size_t at = text.find("pending > 60s"); at != std::string::npos; at = text.find("pending > 60s", at))
    text.replace(at, 13, "pending > 2s");
  return dir.write("nccl.seam", text);
}

// nccl's computed `bytes`: count times the size of the datatype, from the module's table.
TEST_F(PackRules, NcclBytesIsCountTimesTheDatatypesSize) {
  SEAM_REQUIRE_ROOT();
  Workload w(
      {test_python(), "-c",
       "import ctypes, sys\n"
       "lib = ctypes.CDLL(sys.argv[1])\n"
       "print('ready', flush=True); sys.stdin.readline()\n"
       "for dt in (7, 9, 4, 42): lib.ncclAllReduce(None, None, ctypes.c_size_t(3), dt, 0, None, None)\n"
       "print('done', flush=True)\n",
       fixture("libnccl.so.2")});
  std::string rules = dir_.write(
      "bytes.seam", "use nccl\nrule ar on nccl.all_reduce alert info \"{bytes}\" with datatype, bytes\n");
  start({rules});
  ASSERT_TRUE(seam_->wait_for_notice("attached", "libnccl.so.2", seconds(10))) << seam_->stderr_text();
  w.run();
  std::vector<nlohmann::json> alerts = wait_alerts("ar", w.pid(), 4);
  ASSERT_EQ(alerts.size(), 4u) << seam_->stderr_text();
  std::map<int, int> bytes;  // datatype -> bytes: float32 4, bfloat16 2, int64 8, unknown 0
  for (const nlohmann::json& a : alerts)
    bytes[a["fields"].value("datatype", -1)] = a["fields"].value("bytes", -1);
  EXPECT_EQ(bytes, (std::map<int, int>{{4, 24}, {7, 12}, {9, 6}, {42, 0}}));
}

TEST_F(PackRules, NcclHangFiresWhileTheCollectiveIsStillInFlight) {
  SEAM_REQUIRE_ROOT();
  Workload w = python_all_reduce(8000);
  start({nccl_rules_with_short_bound(dir_)});
  ASSERT_TRUE(seam_->wait_for_notice("attached", "libnccl.so.2", seconds(10))) << seam_->stderr_text();
  w.go();
  std::vector<nlohmann::json> alerts = wait_alerts("nccl_collective_hang", w.pid(), 1);
  ASSERT_EQ(alerts.size(), 1u) << seam_->stderr_text();
  EXPECT_EQ(alerts[0].value("severity", ""), "critical");
  // Found while the call is still blocked, not when it returns.
  EXPECT_FALSE(w.child.wait_for_line("done", std::chrono::milliseconds(0)));
  w.finish();
}

TEST_F(PackRules, NcclHangSilentForACollectiveThatReturns) {
  SEAM_REQUIRE_ROOT();
  Workload quick = python_all_reduce(100);
  Workload stuck = python_all_reduce(6000);
  start({nccl_rules_with_short_bound(dir_)});
  ASSERT_TRUE(seam_->wait_for_notice("attached", "libnccl.so.2", seconds(10))) << seam_->stderr_text();
  quick.run();
  stuck.go();
  ASSERT_EQ(wait_alerts("nccl_collective_hang", stuck.pid(), 1).size(), 1u) << seam_->stderr_text();
  EXPECT_EQ(alerts_of(*seam_, "nccl_collective_hang", quick.pid()).size(), 0u);
  stuck.finish();
}

// ---------------------------------------------------------------- every pack file loads

TEST_F(PackRules, RulesThatNeedKprobesOrFentryAreNamedWhenUnavailable) {
  SEAM_REQUIRE_ROOT();
  start({pack("nvidia.seam"), pack("tcp_send.seam")});
  expect_unavailable_names(plan::Feature::Kprobe, "nvidia_ioctl_slow");
  expect_unavailable_names(plan::Feature::Kprobe, "tcp_send_stall_kprobe");
  for (const nlohmann::json& n : seam_->notices("probe-unavailable"))
    EXPECT_TRUE(n.contains("rule")) << "a probe-unavailable notice that names no rule: " << n.dump();
}

// ---------------------------------------------------------------- real libraries

// One rule per event of `module`, counting calls by the workload.
std::string every_event_rules(const std::string& module, const std::vector<std::string>& events) {
  std::string text = "use " + module + "\n";
  for (const std::string& e : events)
    text += "rule " + e + " on " + module + "." + e + " alert info \"" + e + " returned {ret}\" with ret\n";
  return text;
}

void expect_counts(const SeamRun& seam, pid_t pid, const std::map<std::string, size_t>& expected) {
  size_t total = 0;
  for (const auto& [rule, n] : expected) total += n;
  wait_until(
      [&] {
        size_t seen = 0;
        for (const auto& [rule, n] : expected) seen += alerts_of(seam, rule, pid).size();
        return seen >= total;
      },
      seconds(10));
  for (const auto& [rule, n] : expected) EXPECT_EQ(alerts_of(seam, rule, pid).size(), n) << rule;
}

class RealLibraries : public PackRules {
 protected:
  // Runs cuda_api_caller MODE LIB under the rules; skips when LIB is not installed.
  void run_caller(const std::string& mode, const std::string& lib, const std::string& rules,
                  const std::map<std::string, size_t>& expected) {
    if (!std::filesystem::exists(lib)) GTEST_SKIP() << lib << " is not installed here";
    Workload w({fixture("cuda_api_caller"), mode, lib});
    start({dir_.write(mode + ".seam", rules)});
    ASSERT_TRUE(
        seam_->wait_for_notice("attached", std::filesystem::path(lib).filename().string(), seconds(10)))
        << seam_->stderr_text();
    w.run();
    expect_counts(*seam_, w.pid(), expected);
  }
};

TEST_F(RealLibraries, EveryCudaRuntimeEventCountsTheCallsMade) {
  SEAM_REQUIRE_ROOT();
  // Each event counts its plain and _ptsz/_ptds functions: one call each.
  std::map<std::string, size_t> expected = {
      {"stream_sync", 2}, {"device_sync", 1},  {"event_sync", 1},     {"malloc", 1},      {"malloc_async", 2},
      {"malloc_host", 1}, {"host_alloc", 1},   {"malloc_managed", 1}, {"free", 1},        {"free_async", 2},
      {"memcpy", 2},      {"memcpy_async", 2}, {"launch", 2},         {"graph_launch", 2}};
  std::vector<std::string> events;
  for (const auto& [e, n] : expected) events.push_back(e);
  run_caller("cudart", "/usr/local/cuda/lib/libcudart.so.13", every_event_rules("cuda", events), expected);
}

TEST_F(RealLibraries, EveryCudaDriverEventCountsTheCallsMade) {
  SEAM_REQUIRE_ROOT();
  // The toolkit's stub libcuda.so: every entry point exists and returns an error.
  std::map<std::string, size_t> expected = {{"launch_kernel", 2},     {"memcpy_htod_async", 2},
                                            {"memcpy_dtoh_async", 2}, {"mem_alloc", 1},
                                            {"ctx_sync", 1},          {"stream_sync", 2}};
  std::vector<std::string> events;
  for (const auto& [e, n] : expected) events.push_back(e);
  run_caller("driver", "/usr/local/cuda/lib/stubs/libcuda.so", every_event_rules("cuda_driver", events),
             expected);
}

TEST_F(RealLibraries, EveryNcclEventCountsTheCallsMade) {
  SEAM_REQUIRE_ROOT();
  std::map<std::string, size_t> expected = {{"all_reduce", 1}, {"all_gather", 1},    {"reduce_scatter", 1},
                                            {"broadcast", 1},  {"reduce", 1},        {"collective", 5},
                                            {"send", 1},       {"recv", 1},          {"group_start", 1},
                                            {"group_end", 1},  {"comm_init_rank", 1}};
  std::vector<std::string> events;
  for (const auto& [e, n] : expected) events.push_back(e);
  run_caller("nccl", "/usr/local/cuda/lib/libnccl.so.2", every_event_rules("nccl", events), expected);
}

}  // namespace
}  // namespace seam::test
