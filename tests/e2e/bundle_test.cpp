// Compiled rule bundles (`seam build`, `seam run BUNDLE`): a bundle runs with no clang anywhere
// (PATH has none and $SEAM_CLANG points at a trap that records any call), the default pack's
// bundle reports the probe kinds this kernel lacks per rule, a new bundle written over the
// running one takes over with no call unseen, and a bundle of another engine ABI is refused.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "compiler/bundle/bundle.hpp"
#include "runtime/load/features.hpp"
#include "runtime/run/prebuilt_hook.hpp"
#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

std::string seq_rule(const std::string& name, const std::string& version) {
  return "use cuda\n\nrule " + name + "\n    on cudaMalloc\n    alert info \"" + version + " {size}\"\n";
}

// For the life of the object: no clang on PATH, and $SEAM_CLANG a script that leaves a mark when
// anything runs it. Children (seam) inherit it; the test itself only waits and reads files.
class NoClang {
 public:
  explicit NoClang(const TempDir& dir) : mark_(dir.path() + "/clang-was-run") {
    trap_ = dir.write("bin/clang", "#!/bin/sh\necho \"$@\" >> " + mark_ + "\nexit 1\n");
    chmod(trap_.c_str(), 0755);
    if (const char* p = std::getenv("PATH")) old_path_ = p;
    setenv("PATH", (dir.path() + "/empty-bin").c_str(), 1);
    setenv("SEAM_CLANG", trap_.c_str(), 1);
  }
  ~NoClang() {
    setenv("PATH", old_path_.c_str(), 1);
    unsetenv("SEAM_CLANG");
  }
  bool clang_was_run() const { return std::filesystem::exists(mark_); }

 private:
  std::string mark_, trap_, old_path_;
};

CommandResult seam_build(const std::vector<std::string>& paths, const std::string& out) {
  std::vector<std::string> argv = {SEAM_EXE, "build"};
  argv.insert(argv.end(), paths.begin(), paths.end());
  argv.insert(argv.end(), {"-o", out});
  return run_command(argv);
}

std::vector<int64_t> seqs(const std::vector<nlohmann::json>& alerts) {
  std::vector<int64_t> out;
  for (const nlohmann::json& a : alerts) out.push_back(a["fields"].value("size", int64_t{-1}));
  return out;
}

class Bundle : public ::testing::Test {
 protected:
  void start_workload() {
    workload_ = std::make_unique<Child>(numbered_malloc_caller("0.002"));
    ASSERT_TRUE(workload_->wait_for_line("ready", 10s));
  }
  std::vector<nlohmann::json> mine(const SeamRun& seam, const std::string& rule) const {
    return of_pid(seam.alerts(rule), workload_->pid());
  }
  TempDir dir_;
  std::unique_ptr<Child> workload_;
};

TEST_F(Bundle, RunsWithNoClangAndAlerts) {
  SEAM_REQUIRE_ROOT();
  start_workload();
  dir_.write("rules/seq.seam", seq_rule("seq_v1", "v1"));
  std::string bundle = dir_.path() + "/rules.seamb";
  CommandResult built = seam_build({dir_.path() + "/rules"}, bundle);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_NE(built.err.find("rules.seamb: 1 rules from "), std::string::npos) << built.err;
  NoClang no_clang(dir_);
  SeamRun seam(dir_.path(), {bundle, "--listen", "off"});
  ASSERT_TRUE(wait_until([&] { return mine(seam, "seq_v1").size() >= 10; }, 30s)) << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  for (const nlohmann::json& a : mine(seam, "seq_v1")) EXPECT_EQ(a.value("message", "").rfind("v1 ", 0), 0u);
  EXPECT_FALSE(no_clang.clang_was_run()) << read_file(dir_.path() + "/clang-was-run");
  // The dynamic loader's hook came built with seam: a bundle run has it too, with no clang.
  if (!runtime::prebuilt_loader_hook().empty() || in_ci()) {
    EXPECT_TRUE(seam.notices("loader-hook-unavailable").empty()) << seam.stderr_text();
  }
}

// A bundle merges its files into one object; each rule keeps its own file's scope, so that the
// default pack's workload-scoped rules do not alert host-wide. Three rules on one probe site:
// host-wide, scoped to the workload's name, scoped to a name no process has.
TEST_F(Bundle, EachRuleKeepsItsOwnFilesScope) {
  SEAM_REQUIRE_ROOT();
  start_workload();
  std::string comm = read_file("/proc/" + std::to_string(workload_->pid()) + "/comm");
  comm = comm.substr(0, comm.find('\n'));
  dir_.write("rules/a_host.seam", seq_rule("everywhere", "host"));
  auto scoped = [](const std::string& pattern, const std::string& rule) {  // `scope` after `use cuda`
    return "use cuda\nscope comm \"" + pattern + "\"\n" + seq_rule(rule, rule).substr(9);
  };
  dir_.write("rules/b_named.seam", scoped(comm, "named"));
  dir_.write("rules/c_nobody.seam", scoped("no-such-comm", "nobody"));
  std::string bundle = dir_.path() + "/rules.seamb";
  CommandResult built = seam_build({dir_.path() + "/rules"}, bundle);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  SeamRun seam(dir_.path(), {bundle, "--listen", "off"});
  ASSERT_TRUE(wait_until(
      [&] { return mine(seam, "everywhere").size() >= 10 && mine(seam, "named").size() >= 10; }, 30s))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  EXPECT_EQ(seam.alerts("nobody").size(), 0u);
}

TEST_F(Bundle, DefaultPackLoadsAndReportsWhatThisKernelLacksPerRule) {
  SEAM_REQUIRE_ROOT();
  std::string bundle = dir_.path() + "/pack.seamb";
  CommandResult built = seam_build({std::string(SEAM_SOURCE_DIR) + "/rules"}, bundle);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  NoClang no_clang(dir_);
  SeamRun seam(dir_.path(), {bundle, "--listen", "off", "--duration", "2"});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", 60s)) << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  for (const nlohmann::json& line : seam.lines()) {
    EXPECT_NE(line.value("notice", ""), "load-failed") << line.dump();
    EXPECT_NE(line.value("notice", ""), "probe-failed") << line.dump();
  }
  if (!runtime::probe_features().available(plan::Feature::Kprobe)) {
    bool named = false;
    for (const nlohmann::json& n : seam.notices("probe-unavailable"))
      named = named || (n.value("rule", "") == "tcp_send_stall_kprobe" &&
                        n.value("message", "").find("unavailable here") != std::string::npos);
    EXPECT_TRUE(named) << seam.stderr_text();
  }
  EXPECT_FALSE(no_clang.clang_was_run());
}

TEST_F(Bundle, NewBundleOverTheRunningOneTakesOverWithNoCallUnseen) {
  SEAM_REQUIRE_ROOT();
  start_workload();
  dir_.write("v1/seq.seam", seq_rule("seq_v1", "v1"));
  dir_.write("v2/seq.seam", seq_rule("seq_v2", "v2"));
  std::string bundle = dir_.path() + "/live/rules.seamb";
  std::filesystem::create_directories(dir_.path() + "/live");
  ASSERT_EQ(seam_build({dir_.path() + "/v1"}, bundle).exit_code, 0);
  std::string v2 = dir_.path() + "/v2.seamb";
  ASSERT_EQ(seam_build({dir_.path() + "/v2"}, v2).exit_code, 0);
  NoClang no_clang(dir_);
  SeamRun seam(dir_.path(), {bundle, "--listen", "off"});
  ASSERT_TRUE(wait_until([&] { return mine(seam, "seq_v1").size() >= 20; }, 30s)) << seam.stderr_text();
  ASSERT_EQ(std::rename(v2.c_str(), bundle.c_str()), 0);  // as `seam build -o` and `mv` replace it
  ASSERT_TRUE(wait_until([&] { return mine(seam, "seq_v2").size() >= 50; }, 30s)) << seam.stderr_text();
  bool reloaded = false;
  for (const nlohmann::json& n : seam.notices("reloaded"))
    reloaded = reloaded || n.value("message", "").find("reload: 1 compiled, 0 failed") != std::string::npos;
  EXPECT_TRUE(reloaded) << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::vector<int64_t> a = seqs(mine(seam, "seq_v1")), b = seqs(mine(seam, "seq_v2"));
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  // The old bundle stops only after the new one fires: the versions meet with no call unseen.
  EXPECT_GE(*std::max_element(a.begin(), a.end()) + 1, *std::min_element(b.begin(), b.end()));
  std::set<int64_t> seen(a.begin(), a.end());
  seen.insert(b.begin(), b.end());
  size_t missing = 0;
  for (int64_t s = *std::min_element(a.begin(), a.end()); s <= *std::max_element(b.begin(), b.end()); ++s)
    missing += seen.count(s) ? 0 : 1;
  EXPECT_EQ(missing, 0u);
  EXPECT_FALSE(no_clang.clang_was_run());
}

// Rewrites the bundle's header as a seam of another engine ABI would have written it.
void make_foreign(const std::string& path) {
  std::string bytes = read_file(path);
  uint64_t len = 0;
  for (int i = 0; i < 8; ++i) len |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
  nlohmann::json header = nlohmann::json::parse(bytes.substr(16, len));
  header["engine_abi"] = bundle::kEngineAbi + 1;
  header["engine_version"] = "seam 9.9.9 (git future)";
  std::string text = header.dump();
  std::string out = bytes.substr(0, 8);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(text.size() >> (8 * i)));
  out += text + bytes.substr(16 + len);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << out;
}

TEST_F(Bundle, LintAndRunRefuseABundleOfAnotherEngine) {
  dir_.write("rules/seq.seam", seq_rule("seq_v1", "v1"));
  std::string bundle = dir_.path() + "/rules.seamb";
  ASSERT_EQ(seam_build({dir_.path() + "/rules"}, bundle).exit_code, 0);
  CommandResult ok = run_command({SEAM_EXE, "lint", bundle});
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(ok.out.find(bundle + ": bundle of 1 rules from "), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("; runs here"), std::string::npos) << ok.out;
  make_foreign(bundle);
  std::string why = bundle + ": incompatible bundle: built by seam 9.9.9 (git future) for engine ABI " +
                    std::to_string(bundle::kEngineAbi + 1) + "; this seam runs engine ABI " +
                    std::to_string(bundle::kEngineAbi) +
                    " bundles only: rebuild it with this seam's `seam build`";
  CommandResult lint = run_command({SEAM_EXE, "lint", bundle});
  EXPECT_EQ(lint.exit_code, 2);
  EXPECT_EQ(lint.out, "error: " + why + "\n");
  CommandResult run = run_command({SEAM_EXE, "run", bundle, "--listen", "off", "--duration", "1"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find(why + "\n"), std::string::npos) << run.err;
}

TEST_F(Bundle, PidAndCgroupAreRefusedWithABundle) {
  dir_.write("rules/seq.seam", seq_rule("seq_v1", "v1"));
  std::string bundle = dir_.path() + "/rules.seamb";
  ASSERT_EQ(seam_build({dir_.path() + "/rules"}, bundle).exit_code, 0);
  CommandResult run = run_command({SEAM_EXE, "run", bundle, "--pid", "1", "--listen", "off"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "seam run: " + bundle +
                         ": --pid and --cgroup are compiled into the programs; a bundle runs without them\n");
}

}  // namespace
}  // namespace seam::test
