#include "runtime/metrics/http_server.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

namespace seam::runtime::metrics {

namespace {

constexpr size_t kMaxRequestBytes = 8192;
constexpr int kClientTimeoutMs = 2000;   // a connection's whole life: request and answer
constexpr size_t kMaxConnections = 512;  // beyond, the oldest connection is closed

const char* reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 431:
      return "Request Header Fields Too Large";
    default:
      return "Internal Server Error";
  }
}

// "host:port" or "[v6]:port" into its parts.
bool split_listen(const std::string& listen, std::string* host, std::string* port) {
  if (!listen.empty() && listen[0] == '[') {
    size_t close = listen.find(']');
    if (close == std::string::npos || close + 1 >= listen.size() || listen[close + 1] != ':') return false;
    *host = listen.substr(1, close - 1);
    *port = listen.substr(close + 2);
  } else {
    size_t colon = listen.rfind(':');
    if (colon == std::string::npos) return false;
    *host = listen.substr(0, colon);
    *port = listen.substr(colon + 1);
  }
  if (port->empty() || port->find_first_not_of("0123456789") != std::string::npos || port->size() > 5)
    return false;
  return std::stoi(*port) <= 65535;
}

}  // namespace

HttpResponse route_request(const std::string& request, const std::function<std::string()>& metrics_body) {
  size_t line_end = request.find("\r\n");
  std::string line = request.substr(0, line_end);
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string::npos ? std::string::npos : line.find(' ', sp1 + 1);
  if (sp2 == std::string::npos || line.compare(sp2 + 1, 5, "HTTP/") != 0)
    return {400, "text/plain; charset=utf-8", "bad request\n"};
  std::string method = line.substr(0, sp1);
  std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string path = target.substr(0, target.find('?'));
  if (path != "/metrics" && path != "/healthz") return {404, "text/plain; charset=utf-8", "not found\n"};
  if (method != "GET") return {405, "text/plain; charset=utf-8", "only GET\n"};
  if (path == "/healthz") return {200, "text/plain; charset=utf-8", "ok\n"};
  return {200, "text/plain; version=0.0.4; charset=utf-8", metrics_body ? metrics_body() : ""};
}

std::string serialize_response(const HttpResponse& r) {
  std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + reason_phrase(r.status) + "\r\n";
  out += "Content-Type: " + r.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  if (r.status == 405) out += "Allow: GET\r\n";
  out += "Connection: close\r\n\r\n";
  return out + r.body;
}

Result<void> HttpServer::start(const std::string& listen, std::function<std::string()> metrics_body) {
  if (thread_.joinable()) return Error{"the metrics server is already running"};
  std::string host, port;
  if (!split_listen(listen, &host, &port))
    return Error{"--listen " + listen + ": expected HOST:PORT", ErrorCode::InvalidInput};
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  // ":9401" means loopback too: listening on every interface takes an explicit 0.0.0.0 or [::].
  if (host.empty()) host = "127.0.0.1";
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0)
    return Error{"--listen " + listen + ": " + gai_strerror(rc), ErrorCode::InvalidInput};
  Error error{"--listen " + listen + ": no address"};
  for (addrinfo* a = found; a; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      listen_fd_ = fd;
      break;
    }
    error = Error{"--listen " + listen + ": " + std::strerror(errno), code_of_errno(errno)};
    close(fd);
  }
  freeaddrinfo(found);
  if (listen_fd_ < 0) return error;
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    close(listen_fd_);
    listen_fd_ = -1;
    return Error{std::string("eventfd: ") + std::strerror(errno)};
  }
  metrics_body_ = std::move(metrics_body);
  thread_ = std::thread([this] { serve(); });
  return {};
}

void HttpServer::stop() {
  if (thread_.joinable()) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof one);
    thread_.join();
  }
  if (listen_fd_ >= 0) close(listen_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
  listen_fd_ = wake_fd_ = -1;
}

// One thread, many connections: each is a small state machine (read the request, write the
// answer) driven by poll, with its own deadline, so clients that hold a connection open and say
// nothing (slowloris) cost a slot each and never delay another client's /healthz.
struct HttpServer::Connection {
  int fd = -1;
  int64_t deadline_ms = 0;
  std::string request;
  std::string answer;  // non-empty once the request is complete
  size_t sent = 0;
};

namespace {

int64_t monotonic_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

// False when the connection is done (answered, failed or closed by the client).
bool HttpServer::step(Connection& c) {
  char buf[2048];
  while (c.answer.empty()) {
    ssize_t n = recv(c.fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    if (n <= 0) return false;
    c.request.append(buf, static_cast<size_t>(n));
    if (c.request.find("\r\n\r\n") != std::string::npos) {
      ++requests_;
      c.answer = serialize_response(route_request(c.request, metrics_body_));
    } else if (c.request.size() > kMaxRequestBytes) {
      c.answer = serialize_response({431, "text/plain; charset=utf-8", "request too large\n"});
    }
  }
  while (c.sent < c.answer.size()) {
    ssize_t n = send(c.fd, c.answer.data() + c.sent, c.answer.size() - c.sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;
    if (n <= 0) return false;
    c.sent += static_cast<size_t>(n);
  }
  shutdown(c.fd, SHUT_WR);
  return false;
}

void HttpServer::serve() {
  std::vector<Connection> conns;
  std::vector<pollfd> fds;
  int64_t accept_paused_until = 0;  // out of descriptors: accept again a little later, not in a spin
  for (;;) {
    int64_t now = monotonic_ms();
    // Past their deadline: closed (over the cap, the oldest goes at accept to make room).
    std::erase_if(conns, [&](Connection& c) {
      if (c.deadline_ms > now) return false;
      close(c.fd);
      return true;
    });
    fds.clear();
    bool accepting = now >= accept_paused_until;
    fds.push_back({listen_fd_, static_cast<short>(accepting ? POLLIN : 0), 0});
    fds.push_back({wake_fd_, POLLIN, 0});
    int64_t next_deadline = accepting ? -1 : accept_paused_until;
    for (const Connection& c : conns) {
      fds.push_back({c.fd, static_cast<short>(c.answer.empty() ? POLLIN : POLLOUT), 0});
      if (next_deadline < 0 || c.deadline_ms < next_deadline) next_deadline = c.deadline_ms;
    }
    int timeout = next_deadline < 0 ? -1 : static_cast<int>(std::max<int64_t>(0, next_deadline - now));
    if (poll(fds.data(), fds.size(), timeout) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents) break;
    std::vector<Connection> still;
    still.reserve(conns.size());
    for (size_t i = 0; i < conns.size(); ++i) {
      if (fds[i + 2].revents && !step(conns[i])) {
        close(conns[i].fd);
        continue;
      }
      still.push_back(std::move(conns[i]));
    }
    conns = std::move(still);
    if (fds[0].revents & POLLIN) {
      for (;;) {
        int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (client < 0) {
          if (errno == EMFILE || errno == ENFILE) accept_paused_until = monotonic_ms() + 100;
          break;
        }
        if (conns.size() >= kMaxConnections) {
          close(conns.front().fd);
          conns.erase(conns.begin());
        }
        Connection c;
        c.fd = client;
        c.deadline_ms = monotonic_ms() + kClientTimeoutMs;
        if (step(c))
          conns.push_back(std::move(c));
        else
          close(client);
      }
    }
  }
  for (Connection& c : conns) close(c.fd);
}

}  // namespace seam::runtime::metrics
