#include "support/e2e_helpers.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/identity/cgroup_resolver.hpp"

namespace seam::test {

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

namespace {
size_t append_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}
}  // namespace

std::string http_get(const std::string& url) {
  CURL* c = curl_easy_init();
  std::string body;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 2000L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  long status = 0;
  if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(c);
  return status == 200 ? body : "";
}

TestCgroup::TestCgroup(std::string rel) : root_(runtime::cgroup2_root()), rel_(std::move(rel)) {
  if (!root_.empty()) std::filesystem::create_directories(root_ + rel_);
}

TestCgroup::~TestCgroup() {
  if (root_.empty()) return;
  if (pid_ > 0 && kill(pid_, 0) == 0) std::ofstream(root_ + "/cgroup.procs") << pid_ << std::endl;
  for (std::string p = rel_; p.size() > 1; p = p.substr(0, p.rfind('/'))) rmdir((root_ + p).c_str());
}

bool TestCgroup::add(pid_t pid) {
  pid_ = pid;
  std::ofstream procs(root_ + rel_ + "/cgroup.procs");
  procs << pid << std::endl;
  return !root_.empty() && procs.good();
}

}  // namespace seam::test
