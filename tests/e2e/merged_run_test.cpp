// `seam run` builds every rule file into one object (docs/operations.md, "Hot reload"): 300
// files with tracepoint rules load in one run (past the kernel's 64 programs per tracepoint, had
// each file its own) and each fires; three files on one tracepoint attach one
// program there; a reload of one of the 100 files loses no call of the workload.
#include <gtest/gtest.h>
#include <sys/types.h>

#include <bpf/bpf.h>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using namespace std::chrono_literals;

// Calls cudaMalloc every ~2 ms with a sequence number as the size, and getppid 3 times (a
// per-syscall tracepoint) each time it reads a line, then prints "done".
constexpr const char* kWorkload = R"(
import ctypes, os, sys, threading, time
lib = ctypes.CDLL(sys.argv[1])
def calls():
    p = ctypes.c_void_p()
    i = 0
    while True:
        i += 1
        lib.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(i))
        time.sleep(0.002)
threading.Thread(target=calls, daemon=True).start()
print("ready", flush=True)
for line in sys.stdin:
    for _ in range(3):
        os.getppid()
    print("done", flush=True)
)";

// `read`: on syscalls.read (the workload's read of its stdin), not on getppid's syscalls.any.
std::string tracepoint_rule(const std::string& name, pid_t pid, bool read = false) {
  if (read)
    return "use syscalls\n\nrule " + name + "\n    on syscalls.read where pid == " + std::to_string(pid) +
           "\n    alert info \"" + name + "\"\n";
  return "use syscalls\n\nrule " + name + "\n    on syscalls.any where pid == " + std::to_string(pid) +
         " and id == getppid\n    alert info \"" + name + "\"\n";
}

std::string seq_rule(const std::string& name) {
  return "use cuda\n\nrule " + name + "\n    on cudaMalloc\n    alert info \"" + name + " {size}\"\n";
}

// The BPF programs seam holds, by id, from its /proc/PID/fdinfo, and how many of its links (a
// tracepoint's perf link) run each: other engineers' and tests' programs are not counted.
struct HeldBpf {
  std::map<uint32_t, std::string> programs;  // id -> name
  std::map<uint32_t, size_t> links;          // program id -> links to it
};

HeldBpf held_bpf(pid_t pid) {
  HeldBpf out;
  std::string dir = "/proc/" + std::to_string(pid) + "/fdinfo";
  DIR* d = opendir(dir.c_str());
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream in(dir + "/" + e->d_name);
    std::string line;
    bool link = false;
    uint32_t prog = 0;
    while (std::getline(in, line)) {
      if (line.rfind("link_type:", 0) == 0) link = true;
      if (line.rfind("prog_id:", 0) == 0) prog = static_cast<uint32_t>(std::stoul(line.substr(8)));
    }
    if (prog == 0) continue;
    if (link) ++out.links[prog];
    if (out.programs.count(prog)) continue;
    int fd = bpf_prog_get_fd_by_id(prog);
    if (fd < 0) continue;
    bpf_prog_info info{};
    uint32_t len = sizeof info;
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0) out.programs[prog] = info.name;
    close(fd);
  }
  closedir(d);
  return out;
}

class MergedRun : public ::testing::Test {
 protected:
  void SetUp() override {
    workload_ = std::make_unique<Child>(std::vector<std::string>{
        test_python(), "-c", kWorkload, std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12"});
    ASSERT_TRUE(workload_->wait_for_line("ready", 10s));
    rules_ = dir_.path() + "/rules";
  }
  std::vector<std::string> args() {
    return {rules_, "--pid", std::to_string(workload_->pid()), "--listen", "off"};
  }
  void call_getppid() {
    workload_->send_line("go");
    ASSERT_TRUE(workload_->wait_for_line("done", 10s));
  }
  static std::string name(int i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "t%03d", i);
    return buf;
  }
  static std::set<std::string> files_alerting(const SeamRun& seam) {
    std::set<std::string> out;
    for (const nlohmann::json& a : seam.alerts()) out.insert(a.value("file", ""));
    return out;
  }

  TempDir dir_;
  std::string rules_;
  std::unique_ptr<Child> workload_;
};

// 300 files with a rule on one tracepoint each: one object, and every file's rule fires, its
// alerts naming its own file. Half the rules are on syscalls.read (the workload's read of the
// line it is sent): at most 200 rules and metrics of the whole set may be on one event (E0008,
// docs/language.md "Limits").
TEST_F(MergedRun, ThreeHundredTracepointFilesLoadAsOneObjectAndEachFires) {
  SEAM_REQUIRE_ROOT();
  std::set<std::string> files;
  for (int i = 0; i < 300; ++i)
    files.insert(
        dir_.write("rules/" + name(i) + ".seam", tracepoint_rule(name(i), workload_->pid(), i % 2 == 1)));
  SeamRun seam(dir_.path(), args());
  ASSERT_TRUE(seam.wait_for_notice("ready", "for 300 rules", 120s)) << seam.stderr_text();
  call_getppid();  // ends the read begun before seam started
  call_getppid();  // a read seam saw begin and end
  ASSERT_TRUE(wait_until([&] { return files_alerting(seam) == files; }, 30s)) << seam.stderr_text();
  for (int i = 0; i < 300; ++i) {
    std::vector<nlohmann::json> alerts = seam.alerts(name(i));
    ASSERT_FALSE(alerts.empty()) << name(i);
    EXPECT_EQ(alerts.front().value("file", ""), rules_ + "/" + name(i) + ".seam");
  }
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

// Three files on the same tracepoint: seam holds one program for its entry (however many
// files), attached once.
TEST_F(MergedRun, ThreeFilesOnOneTracepointAttachOneProgram) {
  SEAM_REQUIRE_ROOT();
  for (int i = 0; i < 3; ++i)
    dir_.write("rules/" + name(i) + ".seam", tracepoint_rule(name(i), workload_->pid()));
  SeamRun seam(dir_.path(), args());
  ASSERT_TRUE(seam.wait_for_notice("ready", "for 3 rules", 60s)) << seam.stderr_text();
  call_getppid();
  ASSERT_TRUE(wait_until([&] { return files_alerting(seam).size() == 3; }, 30s)) << seam.stderr_text();
  HeldBpf held = held_bpf(seam.pid());
  std::map<std::string, size_t> by_name;  // program name -> programs of that name seam holds
  size_t linked = 0;
  for (const auto& [id, prog] : held.programs) {
    ++by_name[prog];
    if (held.links.count(id)) ++linked;
  }
  std::string listing;
  for (const auto& [prog, n] : by_name) listing += prog + " x" + std::to_string(n) + "\n";
  // One object: every program name once (three objects would hold each of theirs three times).
  for (const auto& [prog, n] : by_name) EXPECT_EQ(n, 1u) << listing;
  // The syscall's entry and exit (and seam's own exec, scope and loader programs): each linked once.
  for (const auto& [id, n] : held.links) EXPECT_EQ(n, 1u) << held.programs[id] << "\n" << listing;
  EXPECT_GE(linked, 2u) << listing;
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

// A reload of one of 100 files builds the whole set again and attaches it before the old object
// stops: the edited file's rule sees every call across the edit, the others go on firing.
TEST_F(MergedRun, ReloadOfOneOfHundredFilesLosesNoCall) {
  SEAM_REQUIRE_ROOT();
  for (int i = 0; i < 100; ++i) {
    std::string text = tracepoint_rule(name(i), workload_->pid());
    if (i == 50) text += "\n" + seq_rule("seq_v1").substr(std::string("use cuda\n").size());
    dir_.write("rules/" + name(i) + ".seam", i == 50 ? "use cuda\n" + text : text);
  }
  SeamRun seam(dir_.path(), args());
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_v1").size() >= 20; }, 120s)) << seam.stderr_text();
  std::string edited = tracepoint_rule(name(50), workload_->pid()) + "\n" +
                       seq_rule("seq_v2").substr(std::string("use cuda\n").size());
  std::string tmp = dir_.write("rules/.t050.tmp", "use cuda\n" + edited);
  ASSERT_EQ(std::rename(tmp.c_str(), (rules_ + "/" + name(50) + ".seam").c_str()), 0);
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_v2").size() >= 50; }, 120s)) << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("reloaded", "reload: 1 compiled, 0 failed, 99 unchanged, 0 removed", 10s))
      << seam.stderr_text();
  call_getppid();  // every file's tracepoint rule, from the new object
  ASSERT_TRUE(wait_until([&] { return files_alerting(seam).size() == 100; }, 30s)) << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();

  std::set<int64_t> seen;
  int64_t first = INT64_MAX, last = 0, last_v1 = 0, first_v2 = INT64_MAX;
  for (const char* rule : {"seq_v1", "seq_v2"})
    for (const nlohmann::json& a : seam.alerts(rule)) {
      int64_t s = a["fields"].value("size", int64_t{-1});
      seen.insert(s);
      first = std::min(first, s);
      last = std::max(last, s);
      if (std::string(rule) == "seq_v1") last_v1 = std::max(last_v1, s);
      if (std::string(rule) == "seq_v2") first_v2 = std::min(first_v2, s);
    }
  EXPECT_GE(last_v1 + 1, first_v2) << "the old object stopped before the new one fired";
  std::vector<int64_t> missing;
  for (int64_t s = first; s <= last; ++s)
    if (!seen.count(s)) missing.push_back(s);
  EXPECT_TRUE(missing.empty()) << missing.size() << " calls unseen between " << first << " and " << last;
}

// A broken edit of one file keeps the whole running object: the other file's rule fires on, the
// notice names the broken file and line, and the same text is not built again.
TEST_F(MergedRun, ABrokenFileKeepsEveryRuleOfTheOldObjectRunning) {
  SEAM_REQUIRE_ROOT();
  dir_.write("rules/seq.seam", seq_rule("seq_v1"));
  dir_.write("rules/other.seam", tracepoint_rule("other", workload_->pid()));
  SeamRun seam(dir_.path(), args());
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_v1").size() >= 10; }, 60s)) << seam.stderr_text();
  std::string tmp = dir_.write(
      "rules/.other.tmp", "use syscalls\n\nrule other\n    on syscalls.any\n    alert info \"{nosuch}\"\n");
  ASSERT_EQ(std::rename(tmp.c_str(), (rules_ + "/other.seam").c_str()), 0);
  ASSERT_TRUE(seam.wait_for_notice("reload-failed", "other.seam:5:", 60s)) << seam.stderr_text();
  ASSERT_TRUE(seam.wait_for_notice("reloaded", "reload: 0 compiled, 1 failed, 1 unchanged, 0 removed", 10s))
      << seam.stderr_text();
  size_t before = seam.alerts("seq_v1").size();
  EXPECT_TRUE(wait_until([&] { return seam.alerts("seq_v1").size() >= before + 50; }, 10s));
  call_getppid();  // the old object's rule of the broken file runs too
  EXPECT_TRUE(wait_until([&] { return !seam.alerts("other").empty(); }, 10s)) << seam.stderr_text();
  seam.signal(SIGHUP);  // the same broken text: not built again
  ASSERT_TRUE(seam.wait_for_notice("reloaded", "reload: 0 compiled, 0 failed, 2 unchanged, 0 removed", 10s))
      << seam.stderr_text();
  EXPECT_EQ(seam.notices("reload-failed").size(), 1u);
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

// Every file gone: the object is detached (nothing is left to build); a file added later starts
// a new one.
TEST_F(MergedRun, EveryFileGoneStopsTheObjectAndANewFileStartsOne) {
  SEAM_REQUIRE_ROOT();
  dir_.write("rules/seq.seam", seq_rule("seq_v1"));
  SeamRun seam(dir_.path(), args());
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_v1").size() >= 10; }, 60s)) << seam.stderr_text();
  std::filesystem::remove(rules_ + "/seq.seam");
  ASSERT_TRUE(seam.wait_for_notice("reloaded", "reload: 0 compiled, 0 failed, 0 unchanged, 1 removed", 30s))
      << seam.stderr_text();
  size_t after_removal = seam.alerts("seq_v1").size();
  std::string tmp = dir_.write("rules/.seq.tmp", seq_rule("seq_v2"));
  ASSERT_EQ(std::rename(tmp.c_str(), (rules_ + "/seq.seam").c_str()), 0);
  ASSERT_TRUE(wait_until([&] { return seam.alerts("seq_v2").size() >= 10; }, 60s)) << seam.stderr_text();
  EXPECT_EQ(seam.alerts("seq_v1").size(), after_removal);
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
}

}  // namespace
}  // namespace seam::test
