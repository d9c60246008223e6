#include "support/seam_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "support/test_support.hpp"

namespace seam::test {

namespace {
pid_t spawn(const std::vector<std::string>& argv, int in_fd, int out_fd, int err_fd) {
  signal(SIGPIPE, SIG_IGN);  // a child that exits early must fail the test, not kill it
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlive a test that dies
    if (in_fd >= 0) dup2(in_fd, 0);
    if (out_fd >= 0) dup2(out_fd, 1);
    if (err_fd >= 0) dup2(err_fd, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  return pid;
}
}  // namespace

SeamRun::SeamRun(const std::string& dir, const std::vector<std::string>& args) : SeamRun(dir, args, -1) {}

SeamRun::SeamRun(const std::string& dir, const std::vector<std::string>& args, int stdout_fd) {
  out_ = dir + "/out.jsonl";
  err_ = dir + "/stderr.txt";
  std::string stdout_path = dir + "/stdout.txt";
  std::vector<std::string> argv = {SEAM_EXE, "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--output");
  argv.push_back("json:" + out_);
  int err_fd = open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  int out_fd =
      stdout_fd >= 0 ? -1 : open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  pid_ = spawn(argv, null_fd, stdout_fd >= 0 ? stdout_fd : out_fd, err_fd);
  close(err_fd);
  if (out_fd >= 0) close(out_fd);
  close(null_fd);
}

SeamRun::~SeamRun() {
  stop();
}

void SeamRun::signal(int sig) const {
  if (pid_ > 0) kill(pid_, sig);
}

// Exited seam stays a zombie until stop() reaps it, and kill(pid, 0) succeeds on a zombie; waitid
// with WNOWAIT sees the exit without reaping (waitpid rejects WNOWAIT with EINVAL).
bool SeamRun::running() const {
  if (pid_ <= 0) return false;
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return false;
  return info.si_pid != pid_;
}

int SeamRun::stop() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    pid_ = -1;
  }
  return exit_code_;
}

std::vector<nlohmann::json> SeamRun::lines() const {
  std::vector<nlohmann::json> out;
  std::istringstream in(read_file(out_));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

std::vector<nlohmann::json> of_pid(const std::vector<nlohmann::json>& alerts, pid_t pid) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& a : alerts)
    if (a.value("pid", 0) == pid) out.push_back(a);
  return out;
}

std::vector<nlohmann::json> SeamRun::alerts(const std::string& rule) const {
  std::vector<nlohmann::json> out;
  for (nlohmann::json& j : lines())
    if (j.contains("rule") && !j.contains("notice") && (rule.empty() || j["rule"] == rule)) out.push_back(j);
  return out;
}

std::vector<nlohmann::json> SeamRun::notices(const std::string& kind) const {
  std::vector<nlohmann::json> out;
  for (nlohmann::json& j : lines())
    if (j.contains("notice") && j["notice"] == kind) out.push_back(j);
  return out;
}

bool SeamRun::wait_for_notice(const std::string& kind, const std::string& text,
                              std::chrono::milliseconds timeout) const {
  return wait_until(
      [&] {
        for (const nlohmann::json& n : notices(kind))
          if (n.value("message", "").find(text) != std::string::npos) return true;
        return false;
      },
      timeout);
}

std::string SeamRun::stderr_text() const {
  return read_file(err_);
}
std::string SeamRun::stdout_text() const {
  return read_file(err_.substr(0, err_.size() - 10) + "stdout.txt");
}

std::string test_python() {
  if (const char* p = std::getenv("SEAM_TEST_PYTHON")) return p;
  std::error_code ec;
  for (const char* v : {"3.11.7", "3.12.1", "3.10.13", "3.13.0"}) {
    std::string p = std::string("/root/.pyenv/versions/") + v + "/bin/python3";
    if (std::filesystem::exists(p, ec)) return p;
  }
  return "python3";
}

Child::Child(const std::vector<std::string>& argv) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) return;
  pid_ = spawn(argv, in[0], out[1], -1);
  close(in[0]);
  close(out[1]);
  in_ = in[1];
  out_ = out[0];
}

Child::~Child() {
  if (in_ >= 0) close(in_);
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (out_ >= 0) close(out_);
}

bool Child::wait_for_line(const std::string& line, std::chrono::milliseconds timeout) {
  return line_starting(line, timeout, true).has_value();
}

std::optional<std::string> Child::line_starting(const std::string& prefix, std::chrono::milliseconds timeout,
                                                bool whole) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    size_t nl;
    while ((nl = buffered_.find('\n')) != std::string::npos) {
      std::string got = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      if (whole ? got == prefix : got.rfind(prefix, 0) == 0) return got;
    }
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{out_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
    char buf[4096];
    ssize_t n = read(out_, buf, sizeof buf);
    if (n <= 0) return std::nullopt;
    buffered_.append(buf, static_cast<size_t>(n));
  }
}

void Child::send_line(const std::string& line) {
  std::string s = line + "\n";
  if (write(in_, s.data(), s.size()) < 0) return;
}

int Child::wait() {
  if (pid_ > 0) {
    int status = 0;
    waitpid(pid_, &status, 0);
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    pid_ = -1;
  }
  return exit_code_;
}

}  // namespace seam::test
