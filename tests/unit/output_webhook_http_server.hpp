#pragma once
// A tiny HTTP/1.1 server for tests: plain sockets on 127.0.0.1 (a free port), one thread, one
// connection at a time, "Connection: close" on every answer. The handler decides per request:
// answer (status and body), or hang (read the request, never answer, wait for the client to give
// up and close). Header-only so that several test executables can use it.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

namespace seam::test {

struct HttpRequest {
  std::string method;
  std::string path;
  std::string headers;  // raw header lines
  std::string body;
  std::string header(const std::string& name) const {
    std::string lower_headers = lower(headers), key = "\r\n" + lower(name) + ":";
    size_t at = ("\r\n" + lower_headers).find(key);
    if (at == std::string::npos) return "";
    size_t start = at + key.size() - 2;
    size_t end = headers.find("\r\n", start);
    std::string value = headers.substr(start, end == std::string::npos ? std::string::npos : end - start);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    return value;
  }
  static std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
};

struct HttpReply {
  int status = 200;
  std::string body;
  bool hang = false;
};

class TestHttpServer {
 public:
  using Handler = std::function<HttpReply(const HttpRequest&)>;

  explicit TestHttpServer(Handler handler) : handler_(std::move(handler)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 16);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~TestHttpServer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  std::string url(const std::string& path = "/") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  bool wait_readable(int fd) {
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) > 0) return true;
    }
    return false;
  }

  bool read_request(int c, HttpRequest& req) {
    std::string data;
    char buf[65536];
    size_t header_end = std::string::npos;
    size_t length = 0;
    while (true) {
      if (header_end == std::string::npos) {
        header_end = data.find("\r\n\r\n");
        if (header_end != std::string::npos) {
          std::string head = data.substr(0, header_end);
          size_t line_end = head.find("\r\n");
          std::string first = head.substr(0, line_end);
          req.method = first.substr(0, first.find(' '));
          size_t p = first.find(' ') + 1;
          req.path = first.substr(p, first.find(' ', p) - p);
          req.headers = line_end == std::string::npos ? "" : head.substr(line_end + 2);
          std::string cl = req.header("Content-Length");
          length = cl.empty() ? 0 : std::stoul(cl);
        }
      }
      if (header_end != std::string::npos && data.size() >= header_end + 4 + length) {
        req.body = data.substr(header_end + 4, length);
        return true;
      }
      if (!wait_readable(c)) return false;
      ssize_t n = ::read(c, buf, sizeof buf);
      if (n <= 0) return false;
      data.append(buf, static_cast<size_t>(n));
    }
  }

  void serve() {
    while (wait_readable(fd_)) {
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      HttpRequest req;
      if (read_request(c, req)) {
        HttpReply reply = handler_(req);
        if (reply.hang) {
          char buf[256];
          while (wait_readable(c) && ::read(c, buf, sizeof buf) > 0) {
          }
        } else {
          std::string out = "HTTP/1.1 " + std::to_string(reply.status) +
                            " X\r\nContent-Type: application/json\r\n" +
                            "Content-Length: " + std::to_string(reply.body.size()) +
                            "\r\nConnection: close\r\n\r\n" + reply.body;
          size_t done = 0;
          while (done < out.size()) {
            ssize_t n = ::send(c, out.data() + done, out.size() - done, MSG_NOSIGNAL);
            if (n <= 0) break;
            done += static_cast<size_t>(n);
          }
        }
      }
      ::close(c);
    }
  }

  Handler handler_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace seam::test
