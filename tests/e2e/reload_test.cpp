// Hot reload under `seam run` (docs/operations.md), on a workload that calls the fake cudart's
// cudaMalloc every ~2 ms with a sequence number as the size: an edited rule takes over with no
// call unseen in between, a broken edit keeps the old rule firing and is reported, SIGHUP with
// nothing changed compiles nothing, and new and deleted files start and stop their rules.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <set>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

// A rule that fires on every call, its message naming the version.
std::string seq_rule(const std::string& name, const std::string& version) {
  return "use cuda\n\nrule " + name + "\n    on cudaMalloc\n    alert info \"" + version + " {size}\"\n";
}

class Reload : public ::testing::Test {
 protected:
  void SetUp() override {
    workload_ = std::make_unique<Child>(numbered_malloc_caller("0.002"));
    ASSERT_TRUE(workload_->wait_for_line("ready", 10s));
    rules_ = dir_.path() + "/rules";
  }
  // Replaces a rule file the way sed -i and vim do: a temporary file renamed over it.
  void rename_over(const std::string& name, const std::string& text) {
    std::string tmp = dir_.write("rules/." + name + ".tmp", text);
    ASSERT_EQ(std::rename(tmp.c_str(), (rules_ + "/" + name).c_str()), 0);
  }
  std::vector<std::string> args(std::vector<std::string> extra = {}) {
    std::vector<std::string> a = {rules_, "--pid", std::to_string(workload_->pid())};
    if (std::find(extra.begin(), extra.end(), "--listen") == extra.end())
      a.insert(a.end(), {"--listen", "off"});
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  static std::vector<int64_t> seqs(const SeamRun& seam, const std::string& rule) {
    std::vector<int64_t> out;
    for (const nlohmann::json& a : seam.alerts(rule)) out.push_back(a["fields"].value("size", int64_t{-1}));
    return out;
  }
  static bool has_notice(const SeamRun& seam, const std::string& kind, const std::string& text) {
    for (const nlohmann::json& n : seam.notices(kind))
      if (n.value("message", "").find(text) != std::string::npos) return true;
    return false;
  }

  TempDir dir_;
  std::string rules_;
  std::unique_ptr<Child> workload_;
};

TEST_F(Reload, EditedRuleTakesOverWithNoCallUnseen) {
  SEAM_REQUIRE_ROOT();
  dir_.write("rules/seq.seam", seq_rule("seq_v1", "v1"));
  SeamRun seam(dir_.path(), args());
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_v1").size() >= 20; }, 30s)) << seam.stderr_text();
  rename_over("seq.seam", seq_rule("seq_v2", "v2"));
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_v2").size() >= 50; }, 30s)) << seam.stderr_text();
  EXPECT_TRUE(has_notice(seam, "reloaded", "reload: 1 compiled, 0 failed, 0 unchanged, 0 removed"));
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();

  std::vector<int64_t> v1 = seqs(seam, "seq_v1"), v2 = seqs(seam, "seq_v2");
  ASSERT_FALSE(v1.empty());
  ASSERT_FALSE(v2.empty());
  for (const nlohmann::json& a : seam.alerts("seq_v2"))
    EXPECT_EQ(a.value("message", "").rfind("v2 ", 0), 0u) << a.dump();
  std::set<int64_t> seen(v1.begin(), v1.end());
  seen.insert(v2.begin(), v2.end());
  int64_t first = *std::min_element(v1.begin(), v1.end()), last = *std::max_element(v2.begin(), v2.end());
  // The old version stops only after the new one fires: the versions meet with no call unseen.
  EXPECT_GE(*std::max_element(v1.begin(), v1.end()) + 1, *std::min_element(v2.begin(), v2.end()));
  std::vector<int64_t> missing;
  for (int64_t s = first; s <= last; ++s)
    if (!seen.count(s)) missing.push_back(s);
  EXPECT_TRUE(missing.empty()) << missing.size() << " calls unseen between " << first << " and " << last
                               << ", the first " << missing.front();
}

TEST_F(Reload, BrokenEditIsReportedAndTheOldRuleKeepsFiring) {
  SEAM_REQUIRE_ROOT();
  dir_.write("rules/seq.seam", seq_rule("seq_v1", "v1"));
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  SeamRun seam(dir_.path(), args({"--listen", listen}));
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_v1").size() >= 10; }, 30s)) << seam.stderr_text();
  // Line 5: a field cudaMalloc does not have.
  rename_over("seq.seam", "use cuda\n\nrule seq_v2\n    on cudaMalloc\n    alert info \"v2 {nosuch}\"\n");
  ASSERT_TRUE(seam.wait_for_notice("reload-failed", "seq.seam:5:", 30s)) << seam.stderr_text();
  std::string notice;
  for (const nlohmann::json& n : seam.notices("reload-failed")) notice = n.value("message", "");
  EXPECT_NE(notice.find("error[E0503]"), std::string::npos) << notice;
  EXPECT_NE(notice.find("previous version keeps running"), std::string::npos) << notice;
  EXPECT_NE(seam.stderr_text().find("seq.seam:5:21: error[E0503]: unknown field '{nosuch}'"),
            std::string::npos)
      << seam.stderr_text();
  size_t before = seam.alerts("seq_v1").size();
  EXPECT_TRUE(wait_until([&] { return seam.alerts("seq_v1").size() >= before + 50; }, 10s));
  std::string body;
  EXPECT_TRUE(wait_until(
      [&] {
        body = run_command({"curl", "-s", "http://" + listen + "/metrics"}).out;
        return body.find("\nseam_rule_reload_errors_total 1\n") != std::string::npos;
      },
      10s))
      << body;
  EXPECT_NE(body.find("\nseam_rule_reloads_total 0\n"), std::string::npos) << body;
  EXPECT_EQ(seam.stop(), 0);
  EXPECT_TRUE(seam.alerts("seq_v2").empty());
}

TEST_F(Reload, SighupWithNothingChangedCompilesNothingAndNoWatchWaitsForIt) {
  SEAM_REQUIRE_ROOT();
  dir_.write("rules/a.seam", seq_rule("seq_a", "a"));
  dir_.write("rules/b.seam", seq_rule("seq_b", "b"));
  SeamRun seam(dir_.path(), args({"--no-watch"}));
  ASSERT_TRUE(seam.wait_for_notice("ready", "for 2 rules", 30s)) << seam.stderr_text();
  seam.signal(SIGHUP);
  ASSERT_TRUE(seam.wait_for_notice("reloaded", "reload: 0 compiled, 0 failed, 2 unchanged, 0 removed", 10s))
      << seam.stderr_text();
  // Without the watcher an edit waits for SIGHUP, and then only the edited file is compiled.
  rename_over("b.seam", seq_rule("seq_b2", "b2"));
  seam.signal(SIGHUP);
  ASSERT_TRUE(seam.wait_for_notice("reloaded", "reload: 1 compiled, 0 failed, 1 unchanged, 0 removed", 30s))
      << seam.stderr_text();
  EXPECT_EQ(seam.notices("reloaded").size(), 2u);  // none from a watcher
  EXPECT_TRUE(wait_until([&] { return !seam.alerts("seq_b2").empty(); }, 10s));
  EXPECT_EQ(seam.stop(), 0);
}

TEST_F(Reload, ANewFileStartsItsRuleADeletedOneStopsIt) {
  SEAM_REQUIRE_ROOT();
  dir_.write("rules/a.seam", seq_rule("seq_a", "a"));
  SeamRun seam(dir_.path(), args());
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_a").size() >= 10; }, 30s)) << seam.stderr_text();
  rename_over("b.seam", seq_rule("seq_b", "b"));
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_b").size() >= 10; }, 30s)) << seam.stderr_text();
  std::filesystem::remove(rules_ + "/a.seam");
  ASSERT_TRUE(seam.wait_for_notice("reloaded", "0 compiled, 0 failed, 1 unchanged, 1 removed", 30s))
      << seam.stderr_text();
  size_t a_after_removal = seam.alerts("seq_a").size();  // drained before the notice
  size_t b_then = seam.alerts("seq_b").size();
  EXPECT_TRUE(wait_until([&] { return seam.alerts("seq_b").size() >= b_then + 50; }, 10s));
  EXPECT_EQ(seam.alerts("seq_a").size(), a_after_removal);
  EXPECT_EQ(seam.stop(), 0);
}

// The rule-file safety check applies to reloads: a world-writable edit is refused like at start.
TEST_F(Reload, AnInsecureEditIsRefusedAndTheOldRuleKeepsFiring) {
  SEAM_REQUIRE_ROOT();
  dir_.write("rules/seq.seam", seq_rule("seq_v1", "v1"));
  SeamRun seam(dir_.path(), args());
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_v1").size() >= 10; }, 30s)) << seam.stderr_text();
  std::string tmp = dir_.write("rules/.seq.seam.tmp", seq_rule("seq_v2", "v2"));
  ASSERT_EQ(chmod(tmp.c_str(), 0666), 0);
  ASSERT_EQ(std::rename(tmp.c_str(), (rules_ + "/seq.seam").c_str()), 0);
  ASSERT_TRUE(seam.wait_for_notice("reload-failed", "writable by everyone", 30s)) << seam.stderr_text();
  size_t before = seam.alerts("seq_v1").size();
  EXPECT_TRUE(wait_until([&] { return seam.alerts("seq_v1").size() >= before + 20; }, 10s));
  EXPECT_EQ(seam.stop(), 0);
  EXPECT_TRUE(seam.alerts("seq_v2").empty());
}

// Every file's metrics are in one object: /metrics must still read each file's own after a reload.
TEST_F(Reload, MetricsOfEveryFileAreServedAcrossAReload) {
  SEAM_REQUIRE_ROOT();
  dir_.write("rules/a.seam", "use cuda\nmetric calls on cuda.malloc count by comm\n");
  dir_.write("rules/b.seam",
             "use cuda\nmetric calls_by_pid on cuda.malloc count by pid\n" + seq_rule("seq_b", "b"));
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  SeamRun seam(dir_.path(), args({"--listen", listen}));
  std::string pid = std::to_string(workload_->pid()), body;
  auto scrape = [&] { return body = run_command({"curl", "-s", "http://" + listen + "/metrics"}).out; };
  auto value = [&](const std::string& series) {
    size_t at = body.find("\n" + series + " ");
    return at == std::string::npos ? -1 : std::stoll(body.substr(at + series.size() + 2));
  };
  ASSERT_TRUE(wait_until(
      [&] {
        scrape();
        return value("seam_calls_total{comm=\"python3\"}") > 0 &&
               value("seam_calls_by_pid_total{pid=\"" + pid + "\"}") > 0;
      },
      30s))
      << body;
  int64_t before = value("seam_calls_total{comm=\"python3\"}");
  rename_over("b.seam",
              "use cuda\nmetric calls_by_pid on cuda.malloc count by pid\n" + seq_rule("seq_b2", "b2"));
  ASSERT_TRUE(wait_until([&] { return !seam.alerts("seq_b2").empty(); }, 30s)) << seam.stderr_text();
  // a.seam's counter goes on (its map is untouched); b.seam's is read from its new object.
  EXPECT_TRUE(wait_until(
      [&] {
        scrape();
        return value("seam_calls_total{comm=\"python3\"}") > before &&
               value("seam_calls_by_pid_total{pid=\"" + pid + "\"}") > 0 &&
               value("seam_rule_reloads_total") == 1;
      },
      10s))
      << body;
  EXPECT_EQ(seam.stop(), 0);
}

}  // namespace
}  // namespace seam::test
