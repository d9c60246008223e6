#pragma once
// A tiny HTTP/1.1 server for scrapes: one thread polling every connection at once, each bounded
// in size and time (2 s, 512 connections), `Connection: close` on every answer. GET /metrics serves the text
// format (text/plain; version=0.0.4), GET /healthz "ok", anything else 404.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "compiler/diag/result.hpp"

namespace seam::runtime::metrics {

class HttpServer {
 public:
  HttpServer() = default;
  ~HttpServer() { stop(); }
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Listens on "host:port" ("127.0.0.1:9401", "[::1]:9401", "localhost:0" for any free port;
  // ":9401" is loopback, every interface must be asked for with "0.0.0.0:9401" or "[::]:9401")
  // and starts serving; metrics_body is called on the server's thread for each GET /metrics.
  // An error when the address is malformed (ErrorCode::InvalidInput) or cannot be bound.
  Result<void> start(const std::string& listen, std::function<std::string()> metrics_body);
  void stop();  // idempotent; waits for the thread
  uint16_t port() const { return port_; }
  uint64_t requests() const { return requests_; }

 private:
  struct Connection;
  void serve();
  bool step(Connection& c);

  int listen_fd_ = -1;
  int wake_fd_ = -1;  // an eventfd that stop() signals
  uint16_t port_ = 0;
  std::atomic<uint64_t> requests_{0};
  std::function<std::string()> metrics_body_;
  std::thread thread_;
};

// The answer to one request (without the connection handling), for the server and for tests.
struct HttpResponse {
  int status = 200;
  std::string content_type;
  std::string body;
};
HttpResponse route_request(const std::string& request, const std::function<std::string()>& metrics_body);
std::string serialize_response(const HttpResponse& response);

}  // namespace seam::runtime::metrics
