// seam feeding a real Alertmanager (Debian's prometheus-alertmanager) on loopback: alerts POSTed
// by the webhook sink, and alerts from a rule firing under `seam run`, are read back from
// Alertmanager's own API with their labels. Skipped only where the binary is missing outside CI
// (scripts/setup-deps.sh installs it; under CI=true it must run).
#include <curl/curl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "runtime/identity/cgroup_resolver.hpp"
#include "runtime/output/webhook_sink.hpp"
#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kAlertmanager = "/usr/bin/prometheus-alertmanager";

// Alertmanager with a null receiver, temp storage, no clustering, on a free loopback port.
class Alertmanager {
 public:
  explicit Alertmanager(const TempDir& dir)
      : server_(
            kAlertmanager,
            [&](int port) {
              std::string config = dir.write("alertmanager.yml",
                                             "route:\n  receiver: 'null'\n  group_wait: 1s\n"
                                             "receivers:\n  - name: 'null'\n");
              std::filesystem::create_directories(dir.path() + "/am-data");
              return std::vector<std::string>{
                  "--config.file=" + config, "--storage.path=" + dir.path() + "/am-data",
                  "--web.listen-address=127.0.0.1:" + std::to_string(port), "--cluster.listen-address="};
            },
            dir.path() + "/alertmanager.log", 10s) {}
  std::string url(const std::string& path = "") const { return server_.url(path); }
  bool wait_ready() const { return server_.wait_ready("/-/ready", 30s); }
  std::string log() const { return server_.log(); }
  // The alert whose alertname is `rule`, once Alertmanager lists it (null when the deadline passes).
  nlohmann::json wait_for_alert(const std::string& rule, std::chrono::milliseconds timeout) const {
    nlohmann::json found;
    wait_until(
        [&] {
          auto alerts = nlohmann::json::parse(http_get(url("/api/v2/alerts")), nullptr, false);
          if (!alerts.is_array()) return false;
          for (const auto& a : alerts)
            if (a["labels"].value("alertname", "") == rule) found = a;
          return !found.is_null();
        },
        timeout);
    return found;
  }

 private:
  LoopbackServer server_;
};

#define REQUIRE_ALERTMANAGER()                                                                  \
  do {                                                                                          \
    if (access(kAlertmanager, X_OK) != 0) {                                                     \
      if (in_ci()) FAIL() << kAlertmanager << " is missing: scripts/setup-deps.sh installs it"; \
      GTEST_SKIP() << "needs " << kAlertmanager << " (package prometheus-alertmanager)";        \
    }                                                                                           \
  } while (0)

runtime::Alert alert(const std::string& rule, uint32_t pid) {
  runtime::Alert a;
  a.time_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  a.severity = plan::Severity::Error;
  a.rule = rule;
  a.file = "rules/e2e.seam";
  a.line = 4;
  a.message = "slow sync in pid " + std::to_string(pid);
  a.pid = pid;
  a.comm = "trainer";
  a.cgroup = 1;
  a.stacks = {{"ustack", false, {{0x7f00, "cudaStreamSynchronize", 0, "libcudart.so.12"}}}};
  return a;
}

TEST(Alertmanager, AlertsFromTheSinkAreListedWithTheirLabels) {
  REQUIRE_ALERTMANAGER();
  TempDir dir;
  Alertmanager am(dir);
  ASSERT_TRUE(am.wait_ready()) << am.log();
  auto options =
      runtime::parse_webhook_spec(am.url() + ",format=alertmanager,instance=node-e2e,batch_wait=10ms",
                                  [](const char*) -> const char* { return nullptr; });
  ASSERT_TRUE(options.ok()) << options.error();
  std::vector<std::string> notices;
  std::mutex mu;
  auto sink = runtime::WebhookSink::create(*options, [&](const runtime::Notice& n) {
    std::lock_guard lock(mu);
    notices.push_back(n.message);
  });
  ASSERT_TRUE(sink.ok()) << sink.error();
  (*sink)->write(alert("e2e_slow_sync", 4242));
  (*sink)->write(alert("e2e_other_rule", 4343));
  (*sink)->flush();

  nlohmann::json a = am.wait_for_alert("e2e_slow_sync", 15s);
  ASSERT_FALSE(a.is_null()) << am.log();
  EXPECT_EQ(a["labels"]["severity"], "error");
  EXPECT_EQ(a["labels"]["instance"], "node-e2e");
  EXPECT_EQ(a["labels"]["pid"], "4242");
  EXPECT_EQ(a["labels"]["comm"], "trainer");
  EXPECT_EQ(a["labels"]["rule_file"], "rules/e2e.seam");
  EXPECT_EQ(a["annotations"]["summary"], "slow sync in pid 4242");
  EXPECT_NE(a["annotations"]["stack"].get<std::string>().find("cudaStreamSynchronize"), std::string::npos);
  EXPECT_EQ(a["generatorURL"], "seam://node-e2e/rules/e2e.seam#L4");
  EXPECT_EQ(a["status"]["state"], "active");
  EXPECT_FALSE(am.wait_for_alert("e2e_other_rule", 5s).is_null());
  ASSERT_TRUE(wait_until([&] { return (*sink)->stats().delivered == 2; }, 5s));
  EXPECT_EQ((*sink)->stats().dropped(), 0u);
  std::lock_guard lock(mu);
  EXPECT_TRUE(notices.empty()) << notices.front();
}

// A rule fires under `seam run --output webhook:...,format=alertmanager` in a process inside a
// pod-like cgroup; Alertmanager lists the alert with its process, container and pod labels.
TEST(Alertmanager, ARuleFiringUnderSeamRunReachesAlertmanager) {
  REQUIRE_ALERTMANAGER();
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Alertmanager am(dir);
  ASSERT_TRUE(am.wait_ready()) << am.log();
  std::string lib = std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12";
  Child caller({"python3", "-c",
                "import ctypes, sys\n"
                "lib = ctypes.CDLL(sys.argv[1])\n"
                "lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]\n"
                "print('ready', flush=True)\n"
                "sys.stdin.readline()\n"
                "lib.cudaStreamSynchronize(ctypes.c_void_p(30000))\n"
                "print('done', flush=True)\n",
                lib});
  ASSERT_TRUE(caller.wait_for_line("ready", 10s));
  pid_t caller_pid = caller.pid();
  const std::string container = "c0ffee0123456789abcdef0123456789abcdef0123456789abcdef0123456789";
  const std::string pod = "7e57a1e2-0000-4000-8000-00000000beef";
  TestCgroup cgroup("/seam-am-test-" + std::to_string(getpid()) + "/kubepods/besteffort/pod" + pod + "/" +
                    container);
  ASSERT_TRUE(cgroup.add(caller_pid));
  std::string rules = dir.write("am.seam", "use cuda\ncudaStreamSynchronize > 10ms -> alert\n");
  SeamRun seam(dir.path(),
               {rules, "--output", "webhook:" + am.url() + ",format=alertmanager,batch_wait=10ms"});
  // The full path: other sessions' tests map fixtures of the same name from their own trees.
  ASSERT_TRUE(seam.wait_for_notice("attached", lib, 30s)) << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", 20s));
  EXPECT_EQ(caller.wait(), 0);
  ASSERT_TRUE(wait_until([&] { return !seam.alerts().empty(); }, 10s)) << seam.stderr_text();
  std::string rule = seam.alerts().front()["rule"];
  nlohmann::json a = am.wait_for_alert(rule, 15s);
  ASSERT_FALSE(a.is_null()) << seam.stderr_text() << am.log();
  EXPECT_EQ(a["labels"]["pid"], std::to_string(caller_pid));
  EXPECT_EQ(a["labels"]["comm"], "python3");
  EXPECT_EQ(a["labels"]["container_id"], container);
  EXPECT_EQ(a["labels"]["container_runtime"], "containerd");
  EXPECT_EQ(a["labels"]["pod_uid"], pod);
  EXPECT_TRUE(a["labels"]["cgroup"].get<std::string>().ends_with("/pod" + pod + "/" + container)) << a.dump();
  EXPECT_EQ(a["labels"]["rule_file"], seam.alerts().front()["file"]);
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

// A windowed rule is a state per series: two processes whose calls cross the threshold give two
// alerts, each with its own pid, in JSON and in Alertmanager; once the calls speed up both are
// resolved (stdout and JSON say so) and Alertmanager no longer lists them.
TEST(Alertmanager, WindowedStatesCarryTheirProcessAndResolve) {
  REQUIRE_ALERTMANAGER();
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Alertmanager am(dir);
  ASSERT_TRUE(am.wait_ready()) << am.log();
  std::string fixtures = SEAM_FIXTURE_DIR;
  std::string lib = fixtures + "/libcudart.so.12";
  Child a({fixtures + "/timed_caller", lib, dir.path() + "/a.txt"});
  Child b({fixtures + "/timed_caller", lib, dir.path() + "/b.txt"});
  ASSERT_TRUE(a.wait_for_line("ready", 10s));
  ASSERT_TRUE(b.wait_for_line("ready", 10s));
  std::string rules = dir.write("win.seam",
                                "use cuda\n"
                                "metric sync_latency on cuda.stream_sync hist duration by pid, comm\n"
                                "rule slow_sync_p50\n"
                                "    when p50(sync_latency) over 3s > 2ms\n"
                                "    alert warning \"p50 of cudaStreamSynchronize is {value}\"\n");
  SeamRun seam(dir.path(), {rules, "--alert-repeat", "1", "--output", "stdout", "--output",
                            "webhook:" + am.url() + ",format=alertmanager,batch_wait=10ms"});
  ASSERT_TRUE(seam.wait_for_notice("attached", lib, 30s)) << seam.stderr_text();
  a.send_line("run 300 4000 4000");
  b.send_line("run 300 4000 4000");
  std::set<std::string> pids = {std::to_string(a.pid()), std::to_string(b.pid())};
  auto firing_in_alertmanager = [&] {
    std::set<std::string> seen;
    auto alerts = nlohmann::json::parse(http_get(am.url("/api/v2/alerts")), nullptr, false);
    if (alerts.is_array())
      for (const auto& x : alerts)
        if (x["labels"].value("alertname", "") == "slow_sync_p50") seen.insert(x["labels"].value("pid", ""));
    return seen;
  };
  EXPECT_TRUE(wait_until([&] { return firing_in_alertmanager() == pids; }, 20s))
      << seam.stderr_text() << am.log();
  std::set<std::string> firing;
  for (const nlohmann::json& x : seam.alerts("slow_sync_p50"))
    if (x.value("status", "") == "firing") {
      firing.insert(std::to_string(x.value("pid", 0)));
      EXPECT_EQ(x["fields"].count("pid"), 0u) << x.dump();  // the pid is the alert's, not a field
      EXPECT_EQ(x.value("comm", ""), "timed_caller");
    }
  EXPECT_EQ(firing, pids);
  ASSERT_TRUE(a.wait_for_line("done", 20s));
  ASSERT_TRUE(b.wait_for_line("done", 20s));

  // Fast calls until the 3 s window holds no slow one: both states end.
  auto resolved = [&] {
    std::set<std::string> out;
    for (const nlohmann::json& x : seam.alerts("slow_sync_p50"))
      if (x.value("status", "") == "resolved") out.insert(std::to_string(x.value("pid", 0)));
    return out;
  };
  EXPECT_TRUE(wait_until(
      [&] {
        for (Child* c : {&a, &b}) {
          c->send_line("run 200 10 10");
          c->wait_for_line("done", 10s);
        }
        return resolved() == pids;
      },
      30s))
      << seam.stderr_text();
  EXPECT_TRUE(wait_until([&] { return firing_in_alertmanager().empty(); }, 15s)) << am.log();
  std::string text = seam.stdout_text();
  EXPECT_NE(text.find("slow_sync_p50 resolved: "), std::string::npos) << text;
  EXPECT_EQ(text.find("pid=0"), std::string::npos) << text;
  a.send_line("quit");
  b.send_line("quit");
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

}  // namespace
}  // namespace seam::test
