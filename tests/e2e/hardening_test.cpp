// Issue 13's runtime half, tried the way an unprivileged user or a careless operator would:
// an exec storm of distinct binaries under a low fd limit, a FIFO and a /dev/zero link planted in
// the watched rules folder, a JSON output on a full disk, log rotation, a stdout nobody reads,
// a reader that goes away, and a webhook URL with secrets in it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/stalled_stdout.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  return std::string(SEAM_FIXTURE_DIR) + "/" + name;
}

// A caller of the fake cudart that makes `count` calls of `micros` each once told "go".
std::unique_ptr<Child> start_caller(long count, long micros = 0) {
  auto c = std::make_unique<Child>(std::vector<std::string>{
      fixture("cuda_caller"), fixture("libcudart.so.12"), std::to_string(count), std::to_string(micros)});
  if (!c->wait_for_line("ready", 10s)) return nullptr;
  return c;
}

// SIGTERM, and whether seam exits within `timeout` (SIGKILL after, so a hung seam fails the
// test instead of hanging it).
bool stops_on_sigterm(SeamRun& seam, std::chrono::milliseconds timeout, int* code) {
  seam.signal(SIGTERM);
  pid_t pid = seam.pid();
  // Exited (a zombie until stop() reaps it), without reaping it here.
  bool stopped = wait_until(
      [&] {
        siginfo_t info{};
        return waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
               info.si_pid == pid;
      },
      timeout);
  if (!stopped) seam.signal(SIGKILL);
  *code = seam.stop();
  return stopped;
}

// A reload that removed a running rule file (none of these tests removes one).
bool has_removed(const SeamRun& seam) {
  for (const nlohmann::json& n : seam.notices("reloaded"))
    if (n.value("message", "").find(" 0 removed") == std::string::npos) return true;
  return false;
}

bool every_line_is_json(const std::string& text, size_t* lines) {
  std::istringstream in(text);
  *lines = 0;
  for (std::string line; std::getline(in, line); ++*lines)
    if (nlohmann::json::parse(line, nullptr, false).is_discarded()) return false;
  return text.empty() || text.back() == '\n';
}

// Item 2: ~1,100 distinct binaries run by `nobody`, with seam limited to 256 descriptors: the
// metrics endpoint still answers and a process started afterwards still gets its probes.
TEST(Hardening, AnExecStormOfDistinctBinariesDoesNotExhaustDescriptors) {
  SEAM_REQUIRE_ROOT();
  passwd* nobody = getpwnam("nobody");
  ASSERT_NE(nobody, nullptr) << "no user 'nobody' on this machine";
  TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  std::string rules = dir.write("rules/sync.seam", kEverySyncRule);
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  SeamRun seam(dir.path(), {rules, "--listen", listen});
  ASSERT_TRUE(seam.wait_for_notice("listening", listen, 60s)) << seam.stderr_text();
  rlimit low{256, 256};
  ASSERT_EQ(prlimit(seam.pid(), RLIMIT_NOFILE, &low, nullptr), 0);

  constexpr int kBinaries = 1100, kAtOnce = 50;
  fs::create_directories(dir.path() + "/bin");
  for (int i = 0; i < kBinaries; ++i)
    fs::copy_file("/bin/sleep", dir.path() + "/bin/sleep" + std::to_string(i));
  pid_t storm = fork();
  if (storm == 0) {
    if (setgid(nobody->pw_gid) != 0 || setuid(nobody->pw_uid) != 0) _exit(3);
    for (int i = 0; i < kBinaries; i += kAtOnce) {
      for (int k = i; k < i + kAtOnce && k < kBinaries; ++k)
        if (fork() == 0) {
          std::string bin = dir.path() + "/bin/sleep" + std::to_string(k);
          execl(bin.c_str(), bin.c_str(), "0.4", nullptr);
          _exit(127);
        }
      while (wait(nullptr) > 0) {
      }
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(storm, &status, 0), storm);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;

  std::string body = http_get("http://" + listen + "/metrics");
  ASSERT_FALSE(body.empty()) << "/metrics did not answer after the storm\n" << seam.stderr_text();
  long long fds = metric_sample(body, "seam_open_fds");
  EXPECT_GT(fds, 0) << body;
  EXPECT_LT(fds, 200) << body;
  auto caller = start_caller(20);
  ASSERT_TRUE(caller);
  ASSERT_TRUE(seam.wait_for_notice("attached", fixture("libcudart.so.12"), 30s))
      << "the library of a process started after the storm got no probes\n"
      << seam.stderr_text();
  caller->send_line("go");
  ASSERT_TRUE(caller->wait_for_line("done", 10s));
  EXPECT_TRUE(wait_until([&] { return of_pid(seam.alerts("every_sync"), caller->pid()).size() >= 20; }, 30s))
      << "a process started after the storm got no probes\n"
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

// Item 3: planted while running, a FIFO and a link to /dev/zero are refused at reload; seam
// neither hangs nor grows, and still stops on SIGTERM.
TEST(Hardening, AFifoAndADeviceLinkPlantedInTheRulesFolderAreRefusedAtReload) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  dir.write("rules/sync.seam", kEverySyncRule);
  auto caller = start_caller(1000000);
  ASSERT_TRUE(caller);
  SeamRun seam(dir.path(),
               {dir.path() + "/rules", "--pid", std::to_string(caller->pid()), "--listen", "off"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", 60s)) << seam.stderr_text();
  ASSERT_EQ(mkfifo((dir.path() + "/rules/fifo.seam").c_str(), 0644), 0);
  ASSERT_EQ(symlink("/dev/zero", (dir.path() + "/rules/zero.seam").c_str()), 0);
  // Each is refused with its name (the watcher may see them in one reload or two).
  auto refused = [&](const std::string& name) {
    std::istringstream in(seam.stderr_text());
    for (std::string line; std::getline(in, line);)
      if (line.find(name) != std::string::npos && line.find("not a regular file") != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(wait_until([&] { return refused("fifo.seam") && refused("zero.seam"); }, 30s))
      << seam.stderr_text();
  EXPECT_FALSE(has_removed(seam)) << seam.stderr_text();
  caller->send_line("go");
  EXPECT_TRUE(wait_until([&] { return !of_pid(seam.alerts("every_sync"), caller->pid()).empty(); }, 30s))
      << "the running rule stopped firing";
  int code = -1;
  EXPECT_TRUE(stops_on_sigterm(seam, 15s, &code)) << seam.stderr_text();
  EXPECT_EQ(code, 0);
}

// Item 5: a JSON output on a full disk: a notice and a metric for what was lost, and the file
// holds whole lines only.
TEST(Hardening, AFullDiskLosesWholeLinesCountedAndTold) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string mnt = dir.path() + "/full";
  fs::create_directories(mnt);
  ASSERT_EQ(mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64k"), 0) << strerror(errno);
  struct Unmount {
    std::string at;
    ~Unmount() { umount2(at.c_str(), MNT_DETACH); }
  } unmount{mnt};
  std::string rules = dir.write("rules/sync.seam", kEverySyncRule);
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  std::string out = mnt + "/alerts.jsonl";
  auto caller = start_caller(3000);
  ASSERT_TRUE(caller);
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller->pid()), "--listen", listen, "--output",
                            "json:" + out});
  ASSERT_TRUE(seam.wait_for_notice("listening", listen, 60s)) << seam.stderr_text();
  caller->send_line("go");
  ASSERT_TRUE(caller->wait_for_line("done", 30s));
  std::string series = "seam_output_dropped_total{output=\"json:" + out + "\",reason=\"write_error\"}";
  long long dropped = -1;
  EXPECT_TRUE(wait_until(
      [&] {
        dropped = metric_sample(http_get("http://" + listen + "/metrics"), series);
        return dropped > 0;
      },
      30s))
      << series << " = " << dropped;
  EXPECT_NE(seam.stderr_text().find("output json:" + out + ": cannot write (No space left on device)"),
            std::string::npos)
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0);
  size_t lines = 0;
  EXPECT_TRUE(every_line_is_json(read_file(out), &lines)) << "a cut-off record in " << out;
  EXPECT_GT(lines, 0u);
}

// Item 6: logrotate's way (mv, then SIGHUP) and a removed file: SIGHUP reopens the path.
// The caller keeps calling, about a thousand times a second, until the test ends: with --pid the
// run ends with it, so a caller that had finished (a million calls flat out take seconds) would
// leave nothing to write to the reopened file.
TEST(Hardening, SighupReopensARotatedOrRemovedJsonFile) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("rules/sync.seam", kEverySyncRule);
  std::string log = dir.path() + "/log.jsonl";
  auto caller = start_caller(1000000, 1000);
  ASSERT_TRUE(caller);
  SeamRun seam(dir.path(),
               {rules, "--pid", std::to_string(caller->pid()), "--listen", "off", "--output", "json:" + log});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", 60s)) << seam.stderr_text();
  caller->send_line("go");
  auto alerts_in = [](const std::string& path) {
    size_t n = 0;
    std::istringstream in(read_file(path));
    for (std::string line; std::getline(in, line);)
      if (line.find("\"rule\":\"every_sync\"") != std::string::npos) ++n;
    return n;
  };
  ASSERT_TRUE(wait_until([&] { return alerts_in(log) >= 10; }, 30s)) << seam.stderr_text();
  ASSERT_EQ(std::rename(log.c_str(), (log + ".1").c_str()), 0);
  seam.signal(SIGHUP);
  EXPECT_TRUE(wait_until([&] { return alerts_in(log) >= 10; }, 30s)) << "nothing written to the new file\n"
                                                                     << seam.stderr_text();
  size_t rotated = alerts_in(log + ".1");
  ASSERT_EQ(std::remove(log.c_str()), 0);
  seam.signal(SIGHUP);
  EXPECT_TRUE(wait_until([&] { return alerts_in(log) >= 10; }, 30s)) << "the removed file was not recreated\n"
                                                                     << seam.stderr_text();
  EXPECT_EQ(alerts_in(log + ".1"), rotated) << "still writing to the rotated file";
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

// Item 9: a stdout nobody reads stalls only stdout: it drops and counts its own records while
// the JSON file beside it gets every alert, and SIGTERM still stops seam.
TEST(Hardening, AStalledStdoutDoesNotStallTheJsonFileBesideIt) {
  SEAM_REQUIRE_ROOT();
  StalledStdoutFlood flood;
  std::string why;
  ASSERT_TRUE(flood.start(&why)) << why;
  SeamRun& seam = *flood.seam;
  const std::string& listen = flood.listen;
  constexpr long kCalls = StalledStdoutFlood::kCalls;
  // Every call is in the JSON file but for those the ring dropped and those the file's own queue
  // dropped in the burst (each counted apart), and the file's queue drains while stdout's stays full.
  std::string body;
  std::string json_series = "{output=\"json:" + flood.dir.path() + "/out.jsonl\"";
  EXPECT_TRUE(wait_until(
      [&] {
        body = http_get("http://" + listen + "/metrics");
        long long ring_dropped =
            std::max(0LL, metric_sample(body, "seam_rule_dropped_total{rule=\"every_sync\"}"));
        long long json_dropped = std::max(
            0LL, metric_sample(body, "seam_output_dropped_total" + json_series + ",reason=\"queue_full\"}"));
        return static_cast<long long>(seam.alerts("every_sync").size()) + ring_dropped + json_dropped >=
                   kCalls &&
               metric_sample(body, "seam_output_queue_depth" + json_series + "}") == 0;
      },
      60s))
      << seam.alerts("every_sync").size() << " of " << kCalls << " in the JSON file\n"
      << body;
  // seam's own metrics are published once a second: wait for stdout's count to show.
  std::string series = "seam_output_dropped_total{output=\"stdout\",reason=\"queue_full\"}";
  EXPECT_TRUE(wait_until(
      [&] { return metric_sample(body = http_get("http://" + listen + "/metrics"), series) > 0; }, 10s))
      << body;
  int code = -1;
  EXPECT_TRUE(stops_on_sigterm(seam, 15s, &code)) << seam.stderr_text();
  EXPECT_EQ(code, 0);
}

// Item 9: `seam run -o json | head -1`: the reader goes, that output ends (no SIGPIPE death),
// the JSON file output goes on, and seam exits 0 when stopped.
TEST(Hardening, AReaderThatGoesAwayEndsOnlyItsOutput) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("rules/sync.seam", kEverySyncRule);
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  auto caller = start_caller(1000000);
  ASSERT_TRUE(caller);
  SeamRun seam(dir.path(),
               {rules, "--pid", std::to_string(caller->pid()), "--listen", "off", "--output", "json"},
               pipe_fds[1]);
  close(pipe_fds[1]);
  char first[64];
  ASSERT_GT(read(pipe_fds[0], first, sizeof first), 0);  // `head -1` reads, then goes
  close(pipe_fds[0]);
  caller->send_line("go");
  ASSERT_TRUE(
      wait_until([&] { return seam.stderr_text().find("the reader is gone") != std::string::npos; }, 30s))
      << seam.stderr_text();
  size_t before = seam.alerts("every_sync").size();
  EXPECT_TRUE(wait_until([&] { return seam.alerts("every_sync").size() >= before + 100; }, 30s))
      << "the JSON file output stopped with stdout";
  EXPECT_TRUE(seam.running());
  int code = -1;
  EXPECT_TRUE(stops_on_sigterm(seam, 15s, &code));
  EXPECT_EQ(code, 0) << seam.stderr_text();
}

// Item 8: a webhook URL's path and query hold the secret (chat webhooks): neither stderr, the
// notices nor the /metrics labels show more than its scheme and host.
TEST(Hardening, AWebhookUrlIsShownAsSchemeAndHostOnly) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("rules/sync.seam", kEverySyncRule);
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  int port = free_port();  // nothing listens: every delivery fails and is reported
  std::string origin = "http://127.0.0.1:" + std::to_string(port);
  auto caller = start_caller(50);
  ASSERT_TRUE(caller);
  SeamRun seam(dir.path(),
               {rules, "--pid", std::to_string(caller->pid()), "--listen", listen, "--output",
                "webhook:http://user:PASSWD@127.0.0.1:" + std::to_string(port) +
                    "/hooks/T0/B0/SECRETPATH?token=SECRETQUERY#SECRETFRAG,retry=20ms,retry_max=50ms,"
                    "timeout=200ms,drain=0ms"});
  ASSERT_TRUE(seam.wait_for_notice("listening", listen, 60s)) << seam.stderr_text();
  caller->send_line("go");
  ASSERT_TRUE(caller->wait_for_line("done", 10s));
  std::string body;
  ASSERT_TRUE(wait_until(
      [&] {
        body = http_get("http://" + listen + "/metrics");
        return metric_sample(body, "seam_output_accepted_total{output=\"webhook:" + origin + "\"}") > 0;
      },
      30s))
      << body;
  ASSERT_TRUE(wait_until([&] { return seam.stderr_text().find("retrying") != std::string::npos; }, 30s))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0);
  std::string everything = body + seam.stderr_text() + read_file(seam.output_path()) + seam.stdout_text();
  for (const char* secret : {"SECRET", "PASSWD", "/hooks/"})
    EXPECT_EQ(everything.find(secret), std::string::npos) << secret << " shown in:\n" << everything;
  EXPECT_NE(seam.stderr_text().find("webhook " + origin), std::string::npos) << seam.stderr_text();
}

uint64_t cap_eff(const std::string& status_path) {
  std::istringstream in(read_file(status_path));
  for (std::string line; std::getline(in, line);)
    if (line.rfind("CapEff:", 0) == 0) return std::stoull(line.substr(7), nullptr, 16);
  return ~0ull;
}

// Item 10: after attaching, every thread of seam holds only what reloads and new processes need
// (docs/operations.md, "Security model"), and both still work.
TEST(Hardening, AfterAttachingOnlyTheNeededCapabilitiesRemainInEveryThread) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  dir.write("rules/sync.seam", kEverySyncRule);
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  SeamRun seam(dir.path(), {dir.path() + "/rules", "--listen", listen});
  ASSERT_TRUE(seam.wait_for_notice("listening", listen, 60s)) << seam.stderr_text();
  uint64_t bpf = 1ull << 39, perfmon = 1ull << 38, ptrace = 1ull << 19, sys_admin = 1ull << 21,
           net_admin = 1ull << 12, dac_override = 1ull << 1, setuid = 1ull << 7;
  std::string task = "/proc/" + std::to_string(seam.pid()) + "/task";
  size_t threads = 0;
  ASSERT_TRUE(wait_until(
      [&] {
        threads = 0;
        for (const auto& t : fs::directory_iterator(task)) {
          ++threads;
          if (cap_eff(t.path().string() + "/status") & (sys_admin | net_admin | dac_override | setuid))
            return false;
        }
        return threads > 0;
      },
      10s))
      << "a thread still holds an administrative capability";
  uint64_t eff = cap_eff("/proc/" + std::to_string(seam.pid()) + "/status");
  EXPECT_EQ(eff & (bpf | perfmon | ptrace), bpf | perfmon | ptrace) << std::hex << eff;
  EXPECT_GT(threads, 1u);
  EXPECT_TRUE(seam.notices("privileges").empty()) << seam.stderr_text();
  // A reload still compiles, loads and attaches, and a new process still gets probes.
  dir.write("rules/again.seam",
            "use cuda\n\nrule again_sync\n    on cuda.stream_sync\n    alert info \"again {duration}\"\n");
  ASSERT_TRUE(seam.wait_for_notice("reloaded", "reload: 1 compiled, 0 failed", 60s)) << seam.stderr_text();
  auto caller = start_caller(5);
  ASSERT_TRUE(caller);
  // Both files' rules are in one object, which attaches to the caller's library once: after
  // that notice, both rules' probes are in.
  ASSERT_TRUE(wait_until(
      [&] {
        size_t n = 0;
        for (const nlohmann::json& a : seam.notices("attached"))
          n += a.value("message", "").find(fixture("libcudart.so.12")) != std::string::npos;
        return n >= 1;
      },
      30s))
      << seam.stderr_text();
  caller->send_line("go");
  ASSERT_TRUE(caller->wait_for_line("done", 10s));
  EXPECT_TRUE(wait_until([&] { return of_pid(seam.alerts("again_sync"), caller->pid()).size() >= 5; }, 30s))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

}  // namespace
}  // namespace seam::test
