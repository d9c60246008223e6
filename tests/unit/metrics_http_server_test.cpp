// The scrape endpoint: a real socket on an ephemeral loopback port, read with a raw client.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <vector>

#include "runtime/metrics/http_server.hpp"

namespace seam::runtime::metrics {
namespace {

// Sends `request` raw and reads until the server closes the connection.
std::string raw_exchange(uint16_t port, const std::string& request) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return "connect failed";
  }
  send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string response;
  char buf[4096];
  for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) response.append(buf, static_cast<size_t>(n));
  close(fd);
  return response;
}

std::string get(uint16_t port, const std::string& path) {
  return raw_exchange(port, "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n");
}

TEST(HttpServer, ServesMetricsAndHealth) {
  HttpServer server;
  std::atomic<int> calls{0};
  Result<void> started =
      server.start("127.0.0.1:0", [&] { return "seam_up " + std::to_string(++calls) + "\n"; });
  ASSERT_TRUE(started) << started.error();
  ASSERT_NE(server.port(), 0);

  std::string metrics = get(server.port(), "/metrics");
  EXPECT_EQ(metrics,
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
            "Content-Length: 10\r\nConnection: close\r\n\r\nseam_up 1\n");
  EXPECT_NE(get(server.port(), "/metrics?x=1").find("\r\n\r\nseam_up 2\n"), std::string::npos);

  std::string health = get(server.port(), "/healthz");
  EXPECT_EQ(health.substr(0, 15), "HTTP/1.1 200 OK");
  EXPECT_EQ(health.substr(health.find("\r\n\r\n") + 4), "ok\n");

  EXPECT_EQ(get(server.port(), "/other").substr(0, 22), "HTTP/1.1 404 Not Found");
  EXPECT_EQ(raw_exchange(server.port(), "POST /metrics HTTP/1.1\r\n\r\n").substr(0, 12), "HTTP/1.1 405");
  EXPECT_EQ(raw_exchange(server.port(), "garbage\r\n\r\n").substr(0, 12), "HTTP/1.1 400");
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(server.requests(), 6u);
  server.stop();
  EXPECT_EQ(get(server.port(), "/healthz"), "connect failed");
}

TEST(HttpServer, RefusesOversizedRequests) {
  HttpServer server;
  ASSERT_TRUE(server.start("127.0.0.1:0", [] { return std::string(); }));
  std::string huge = "GET /metrics HTTP/1.1\r\nX-Pad: " + std::string(20000, 'a') + "\r\n\r\n";
  EXPECT_EQ(raw_exchange(server.port(), huge).substr(0, 12), "HTTP/1.1 431");
  EXPECT_EQ(get(server.port(), "/healthz").substr(0, 15), "HTTP/1.1 200 OK");  // still serving
}

// Slowloris (issue 13, item 7): 200 connections that never finish their request must not keep
// /healthz from answering, and each is closed at its own deadline.
TEST(HttpServer, IdleConnectionsDoNotBlockHealth) {
  HttpServer server;
  ASSERT_TRUE(server.start("127.0.0.1:0", [] { return std::string("seam_up 1\n"); }));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(server.port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::vector<int> idle;
  for (int i = 0; i < 200; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    ASSERT_GE(fd, 0);
    connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);  // EINPROGRESS: never waited for
    idle.push_back(fd);
  }
  for (int fd : idle) send(fd, "GET /hea", 8, MSG_NOSIGNAL);  // a request that never ends
  std::string health = get(server.port(), "/healthz");
  EXPECT_EQ(health.substr(0, 15), "HTTP/1.1 200 OK") << health;
  EXPECT_NE(get(server.port(), "/metrics").find("seam_up 1\n"), std::string::npos);
  // The held connections are closed by the server at their deadline: a read sees the end.
  int first = idle.front();
  int flags = 0;
  ioctl(first, FIONBIO, &flags);  // blocking again, with the 5 s receive timeout of a client
  timeval tv{5, 0};
  setsockopt(first, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char c;
  EXPECT_EQ(recv(first, &c, 1, 0), 0);
  for (int fd : idle) close(fd);
}

TEST(HttpServer, BadListenAddresses) {
  HttpServer a, b;
  Result<void> malformed = a.start("nonsense", {});
  ASSERT_FALSE(malformed);
  EXPECT_EQ(malformed.error(), "--listen nonsense: expected HOST:PORT");
  EXPECT_EQ(malformed.code(), ErrorCode::InvalidInput);
  Result<void> bad_port = a.start("127.0.0.1:99999", {});
  ASSERT_FALSE(bad_port);
  EXPECT_EQ(bad_port.code(), ErrorCode::InvalidInput);
  ASSERT_TRUE(a.start("127.0.0.1:0", {}));
  Result<void> taken = b.start("127.0.0.1:" + std::to_string(a.port()), {});
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error(), "--listen 127.0.0.1:" + std::to_string(a.port()) + ": Address already in use");
}

TEST(HttpServer, AnEmptyHostMeansLoopback) {
  HttpServer server;
  ASSERT_TRUE(server.start(":0", [] { return std::string("x\n"); }));
  EXPECT_EQ(get(server.port(), "/healthz").substr(0, 15), "HTTP/1.1 200 OK");
}

TEST(HttpServer, IPv6ListenWorks) {
  HttpServer server;
  Result<void> started = server.start("[::1]:0", {});
  if (!started && started.error().find("Cannot assign") != std::string::npos)
    GTEST_SKIP() << "no IPv6 loopback here";
  ASSERT_TRUE(started) << started.error();
  EXPECT_NE(server.port(), 0);
}

}  // namespace
}  // namespace seam::runtime::metrics
