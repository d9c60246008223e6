// A workload in a real container (runc, an OCI bundle whose root filesystem holds the program,
// its libc and the fixture libcudart; none of it is on the host's paths): seam on the host finds
// the library through /proc/PID/root, traces the call, and the alert names the container by the
// id in the cgroup runc made for it. With --cgroup on that cgroup, a host process calling its
// own copy of the same library is not traced.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "runtime/identity/cgroup_resolver.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

bool have_runc() {
  return run_command({"sh", "-c", "command -v runc"}).exit_code == 0;
}

// The root filesystem: cuda_caller, the libraries ldd finds for it, and libcudart at /usr/lib.
void make_rootfs(const std::string& rootfs) {
  std::string fixtures = SEAM_FIXTURE_DIR;
  std::string script =
      "set -e; r=" + rootfs + "; mkdir -p $r/usr/bin $r/usr/lib $r/proc $r/dev $r/sys $r/tmp;" + " cp " +
      fixtures + "/cuda_caller $r/usr/bin/; cp -L " + fixtures +
      "/libcudart.so.12 $r/usr/lib/libcudart.so.12;" + " for l in $(ldd " + fixtures +
      "/cuda_caller | awk '/=>/ && $3 ~ /^\\// {print $3} $1 ~ /^\\// {print $1}'); do cp -L "
      "--parents $l $r/; done";
  CommandResult r = run_command({"bash", "-c", script});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

class Container {
 public:
  Container(const std::string& bundle, const std::vector<std::string>& args) : bundle_(bundle) {
    std::string hex = run_command({"sh", "-c", "head -c 32 /dev/urandom | sha256sum | cut -c1-64"}).out;
    id_ = hex.substr(0, 64);
    std::vector<std::string> config = {
        "python3", std::string(SEAM_SOURCE_DIR) + "/tests/deploy/oci_config.py", bundle, "--"};
    config.insert(config.end(), args.begin(), args.end());
    CommandResult c = run_command(config);
    ok_ = c.exit_code == 0;
    if (!ok_) error_ = c.err;
    // In the foreground: the container's stdin and stdout are this Child's pipes.
    if (ok_)
      runc_ = std::make_unique<Child>(std::vector<std::string>{"runc", "run", "--bundle", bundle, id_});
  }
  ~Container() {
    run_command({"runc", "kill", id_, "KILL"});
    runc_.reset();
    run_command({"runc", "delete", "--force", id_});
  }
  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  const std::string& id() const { return id_; }
  Child& process() { return *runc_; }
  pid_t pid() const {  // the container's first process, in the host's PID namespace
    CommandResult s = run_command({"runc", "state", id_});
    return s.exit_code == 0 ? nlohmann::json::parse(s.out).value("pid", -1) : -1;
  }

 private:
  std::string bundle_, id_, error_;
  bool ok_ = false;
  std::unique_ptr<Child> runc_;
};

// The container exits right after its calls and runc removes its cgroup: the alerts still name
// it, since seam walked the cgroups before `ready` (cgroup_resolver.hpp).
TEST(ContainerRun, LibraryOnlyInTheContainerIsTracedAndTheAlertNamesTheContainer) {
  SEAM_REQUIRE_ROOT();
  if (!have_runc()) {
    if (in_ci()) FAIL() << "runc is not installed (scripts/setup-deps.sh installs it)";
    GTEST_SKIP() << "runc is not installed";
  }
  std::string root = runtime::cgroup2_root();
  ASSERT_FALSE(root.empty()) << "no cgroup2 hierarchy mounted";
  TempDir dir;
  std::string bundle = dir.path() + "/oci";
  make_rootfs(bundle + "/rootfs");
  ASSERT_FALSE(fs::exists("/usr/lib/libcudart.so.12"));  // the host has no copy where the container has it
  Container box(bundle, {"/usr/bin/cuda_caller", "/usr/lib/libcudart.so.12", "5", "1000"});
  ASSERT_TRUE(box.ok()) << box.error();
  ASSERT_TRUE(box.process().wait_for_line("ready", 20s));
  pid_t pid = box.pid();
  ASSERT_GT(pid, 0);
  // runc's own cgroup for the container: /<id> under the cgroup2 root.
  std::string cgroup = root + "/" + box.id();
  ASSERT_TRUE(fs::is_directory(cgroup)) << cgroup;

  // A host process calling the host's copy of the same library: outside the container's cgroup.
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child host({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "5", "1000"});
  ASSERT_TRUE(host.wait_for_line("ready", 10s));

  std::string rules =
      dir.write("r.seam", "use cuda\nrule container_sync on cuda.stream_sync alert info \"s\"\n");
  SeamRun seam(dir.path(), {rules, "--cgroup", cgroup, "--listen", "off"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", 60s)) << seam.stderr_text();
  box.process().send_line("go");
  host.send_line("go");
  ASSERT_TRUE(box.process().wait_for_line("done", 20s));
  ASSERT_TRUE(host.wait_for_line("done", 20s));
  ASSERT_TRUE(wait_until([&] { return of_pid(seam.alerts("container_sync"), pid).size() >= 5; }, 10s))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::vector<nlohmann::json> alerts = seam.alerts("container_sync");
  // Traced through /proc/PID/root: the probe was attached to the container's file.
  bool via_root = false;
  for (const nlohmann::json& n : seam.lines())
    via_root = via_root ||
               n.value("message", "").find("/proc/" + std::to_string(pid) + "/root") != std::string::npos;
  EXPECT_TRUE(via_root) << seam.stderr_text();
  for (const nlohmann::json& a : alerts) {
    EXPECT_EQ(a.value("pid", 0), pid) << a.dump();  // the host process is outside --cgroup
    EXPECT_EQ(a.value("container_id", ""), box.id()) << a.dump();
  }
  EXPECT_EQ(of_pid(alerts, host.pid()).size(), 0u);
  EXPECT_EQ(alerts.size(), 5u);
}

}  // namespace
}  // namespace seam::test
