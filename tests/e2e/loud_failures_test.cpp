// Loud failures (docs/operations.md, "Strict mode and loud failures"): a rule that would attach
// nothing now is a warning naming it, and with --strict an error (exit 1) before anything loads;
// a --cgroup that does not exist is bad usage (exit 2); a --listen port that is taken is an
// error (exit 1) once it is asked for, and only a warning for the default address; a user without
// the capabilities BPF needs gets an error naming what was refused (exit 1), not a silent run.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/e2e_helpers.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

// A module of the test's own whose library no process maps and no file is named like.
constexpr const char* kAbsentModule =
    "module absent\n"
    "library lib = \"libseam_never_installed_test.so*\"\n"
    "span call = lib:never_called()\n";

TEST(LoudFailures, ARuleThatAttachesNothingIsAWarningAndUnderStrictAnError) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string module = dir.write("modules/absent.seam", kAbsentModule);
  std::string rules = dir.write("r.seam", "use absent\nrule lonely on absent.call alert info \"x\"\n");
  CommandResult warned = run_command({SEAM_EXE, "run", "--dry-run", module, rules});
  EXPECT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("seam run: warning: rule lonely (" + rules + ":2"), std::string::npos)
      << warned.err;
  EXPECT_NE(warned.err.find(") attaches nothing now"), std::string::npos) << warned.err;
  CommandResult strict = run_command({SEAM_EXE, "run", "--strict", module, rules, "--listen", "off"});
  EXPECT_EQ(strict.exit_code, 1) << strict.err;
  EXPECT_NE(strict.err.find("seam run: error: rule lonely (" + rules + ":2"), std::string::npos)
      << strict.err;
  EXPECT_EQ(strict.err.find("probes attached"), std::string::npos)
      << "refused before loading: " << strict.err;
}

TEST(LoudFailures, ACgroupThatDoesNotExistIsBadUsage) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("r.seam", "use cuda\nrule r on cuda.stream_sync alert info \"x\"\n");
  CommandResult r =
      run_command({SEAM_EXE, "run", "--cgroup", "/seam-no-such-cgroup-" + std::to_string(getpid()), rules});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("seam run: --cgroup /seam-no-such-cgroup-" + std::to_string(getpid()) +
                       ": no such cgroup v2 directory ("),
            std::string::npos)
      << r.err;
}

TEST(LoudFailures, ATakenListenPortIsAnErrorWhenAskedFor) {
  SEAM_REQUIRE_ROOT();
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::string taken = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  TempDir dir;
  std::string rules = dir.write("r.seam", "use cuda\nrule r on cuda.stream_sync alert info \"x\"\n");
  CommandResult r = run_command({SEAM_EXE, "run", rules, "--listen", taken, "--duration", "30"});
  close(fd);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot serve metrics on " + taken + " (--listen): "), std::string::npos) << r.err;
}

TEST(LoudFailures, AUserWithoutCapabilitiesGetsAnErrorNotASilentRun) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("r.seam", "use cuda\nrule r on cuda.stream_sync alert info \"x\"\n");
  std::string bundle = dir.path() + "/r.seamb";  // no compiling as that user: a bundle, built as root
  CommandResult built = run_command({SEAM_EXE, "build", rules, "-o", bundle});
  ASSERT_EQ(built.exit_code, 0) << built.err;
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  ASSERT_EQ(chmod(bundle.c_str(), 0644), 0);
  // timeout: a run that hangs instead of failing fails the test (exit 124) rather than hanging it.
  CommandResult r =
      run_command({"timeout", "60", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                   "--inh-caps=-all", SEAM_EXE, "run", bundle, "--listen", "off", "--duration", "30"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("seam run: warning: not running as root"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Operation not permitted"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("probes attached"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace seam::test
