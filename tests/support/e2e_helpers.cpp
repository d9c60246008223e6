#include "support/e2e_helpers.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "runtime/identity/cgroup_resolver.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

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

LoopbackServer::LoopbackServer(const std::string& binary,
                               const std::function<std::vector<std::string>(int port)>& args, std::string log,
                               std::chrono::seconds grace)
    : port_(free_port()), log_(std::move(log)), grace_(grace) {
  std::vector<std::string> argv = {binary};
  for (std::string& a : args(port_)) argv.push_back(std::move(a));
  pid_ = fork();
  if (pid_ == 0) {
    int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    std::vector<char*> c_argv;
    for (std::string& a : argv) c_argv.push_back(a.data());
    c_argv.push_back(nullptr);
    execv(c_argv[0], c_argv.data());
    _exit(127);
  }
}

LoopbackServer::~LoopbackServer() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  if (!wait_until([&] { return waitpid(pid_, nullptr, WNOHANG) == pid_; }, grace_)) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

std::string LoopbackServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

bool LoopbackServer::wait_ready(const std::string& path, std::chrono::milliseconds timeout) const {
  return wait_until([&] { return !http_get(url(path)).empty(); }, timeout);
}

std::string LoopbackServer::log() const {
  return read_file(log_);
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

std::vector<std::string> numbered_malloc_caller(const std::string& pause_s) {
  return {test_python(), "-c",
          "import ctypes, sys, time\n"
          "lib = ctypes.CDLL(sys.argv[1])\n"
          "p = ctypes.c_void_p()\n"
          "print('ready', flush=True)\n"
          "i = 0\n"
          "while True:\n"
          "    i += 1\n"
          "    lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(i))\n"
          "    time.sleep(" +
              pause_s + ")\n",
          std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12"};
}

bool pin_to_cpu0(pid_t pid) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  bool all = true;
  std::error_code ec;
  for (const auto& t : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec))
    all = sched_setaffinity(std::stoi(t.path().filename().string()), sizeof one, &one) == 0 && all;
  return all && !ec;
}

// A thread's state is the first field after the command name's closing parenthesis.
static char thread_state(const std::filesystem::path& task) {
  std::ifstream in(task / "stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? '?' : stat[close + 2];
}

bool stop_process(pid_t pid, std::chrono::milliseconds timeout) {
  if (kill(pid, SIGSTOP) != 0) return false;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  return wait_until(
      [&] {
        std::error_code ec;
        bool all = true;
        for (const auto& t : std::filesystem::directory_iterator(tasks, ec))
          all = thread_state(t.path()) == 'T' && all;
        return all && !ec;
      },
      timeout);
}

long long metric_sample(const std::string& body, const std::string& series) {
  size_t at = body.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::atoll(body.c_str() + at + series.size() + 2);
}

}  // namespace seam::test
