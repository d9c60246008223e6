// TCP sends seen through tracepoints alone (stdlib/net.seam: sock_send, tcp_send_chunk), as on a
// kernel without kprobes: a loopback sender with a small send buffer writes 1 MiB in one sendall
// while the reader, with a small receive buffer, takes 16 KiB every 10 ms. The one send blocks
// for at least (1 MiB - the buffers) / 1.6 MB/s, far over 200 ms, and reports the bytes sent;
// tcp_sendmsg's copy loop passes at least once per 64 KiB segment goal.
#include <gtest/gtest.h>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

constexpr int kBytes = 1 << 20;

constexpr const char* kSender = R"(
import socket, sys, threading, time
N = 1 << 20
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
srv.bind(('127.0.0.1', 0))
srv.listen(1)
cli = socket.socket()
cli.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16384)
cli.connect(srv.getsockname())
conn, _ = srv.accept()
def slow_reader():
    got = 0
    while got < N:
        b = conn.recv(16384)
        if not b:
            break
        got += len(b)
        time.sleep(0.01)
reader = threading.Thread(target=slow_reader)
print('ready', flush=True)
sys.stdin.readline()
reader.start()
cli.sendall(b'x' * N)
reader.join()
print('done', flush=True)
)";

TEST(NetTracepoints, ASendStalledByASlowReaderIsTimedWithoutKprobes) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  Child app({test_python(), "-c", kSender});
  ASSERT_TRUE(app.wait_for_line("ready", 10s));
  const pid_t pid = app.pid();  // wait() forgets it
  std::string rules =
      dir.write("net.seam",
                "use net\n"
                "metric passes on net.tcp_send_chunk count by pid\n"
                "metric send_time on net.sock_send where protocol == 6 hist duration by cgroup\n"
                "rule stalled on net.sock_send where protocol == 6 and duration > 200ms\n"
                "    alert warning \"a send of {ret} bytes waited {duration}\"\n");
  // --pid ends the run when the sender exits; --summary prints the metrics then.
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(pid), "--listen", "off", "--summary"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "", 60s)) << seam.stderr_text();
  app.send_line("go");
  ASSERT_TRUE(app.wait_for_line("done", 60s));
  EXPECT_EQ(app.wait(), 0);
  ASSERT_TRUE(
      wait_until([&] { return seam.stdout_text().find("metric send_time") != std::string::npos; }, 20s))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::vector<nlohmann::json> stalls = seam.alerts("stalled");
  ASSERT_EQ(stalls.size(), 1u) << seam.stdout_text();
  EXPECT_EQ(stalls[0].value("pid", 0), pid) << stalls[0].dump();
  EXPECT_EQ(stalls[0]["fields"].value("ret", 0), kBytes) << stalls[0].dump();
  EXPECT_GT(stalls[0]["fields"].value("duration", 0), 200'000'000) << stalls[0].dump();
  // The copy loop's passes, per pid: at least one per 64 KiB.
  std::string summary = seam.stdout_text();
  size_t at = summary.find("  pid=" + std::to_string(pid) + ": ");
  ASSERT_NE(at, std::string::npos) << summary;
  EXPECT_GE(std::stoll(summary.substr(at + 7 + std::to_string(pid).size())), kBytes / 65536) << summary;
}

}  // namespace
}  // namespace seam::test
