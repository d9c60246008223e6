// The resolver against real cgroups: the test creates container-like and pod-like cgroups in
// the cgroup2 filesystem, moves a child process into each, and resolves the id the kernel gives
// that process (the directory's inode) to the right container and pod. Pod names come from a
// kubelet-like server in the test. Needs root (creating cgroups); under CI=true it must run.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/identity/cgroup_resolver.hpp"
#include "support/test_support.hpp"
#include "unit/output_webhook_http_server.hpp"

namespace seam::runtime {
namespace {

using namespace std::chrono_literals;

const std::string kId = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const std::string kUid = "5a0c1f9e-2b7d-4c1a-9e3f-77aa55bb33cc";
const std::string kUid2 = "11111111-2222-3333-4444-555555555555";

#define REQUIRE_ROOT_FOR_CGROUPS()                                                         \
  do {                                                                                     \
    if (!test::is_root()) {                                                                \
      if (test::in_ci()) FAIL() << "cgroup identity tests must run as root under CI=true"; \
      GTEST_SKIP() << "needs root (creates cgroups)";                                      \
    }                                                                                      \
  } while (0)

// A cgroup2 mount to work in: the host's, or a fresh one mounted for the test.
class Cgroup2 {
 public:
  Cgroup2() {
    root_ = cgroup2_root();
    if (!root_.empty()) return;
    mounted_ = dir_.path() + "/cg2";
    std::filesystem::create_directories(mounted_);
    if (mount("none", mounted_.c_str(), "cgroup2", 0, nullptr) == 0) root_ = mounted_;
  }
  ~Cgroup2() {
    if (root_ == mounted_ && !root_.empty()) umount(mounted_.c_str());
  }
  const std::string& root() const { return root_; }

 private:
  test::TempDir dir_;
  std::string mounted_;
  std::string root_;
};

// Creates the cgroup directories of `rel` (under root), removes them (deepest first) at the end.
class TestCgroup {
 public:
  TestCgroup(std::string root, std::string rel) : root_(std::move(root)), rel_(std::move(rel)) {
    std::filesystem::create_directories(root_ + rel_);
  }
  ~TestCgroup() {
    for (std::string p = rel_; p.size() > 1; p = p.substr(0, p.rfind('/'))) rmdir((root_ + p).c_str());
  }
  std::string path() const { return root_ + rel_; }
  uint64_t id() const {
    struct stat st {};
    stat(path().c_str(), &st);
    return st.st_ino;
  }

 private:
  std::string root_, rel_;
};

// A sleeping child process, moved into a cgroup; killed at the end (its cgroup can then go).
class Child {
 public:
  Child() {
    pid_ = fork();
    if (pid_ == 0) {
      execl("/bin/sleep", "sleep", "60", static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Child() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  bool move_to(const std::string& cgroup_dir) const {
    std::ofstream procs(cgroup_dir + "/cgroup.procs");
    procs << pid_ << std::endl;
    return procs.good();
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

TEST(IdentityCgroup, ProcessesInContainerAndPodCgroupsAreLabelled) {
  REQUIRE_ROOT_FOR_CGROUPS();
  Cgroup2 fs;
  ASSERT_FALSE(fs.root().empty()) << "no cgroup2 filesystem and none could be mounted";
  std::string base = "/seam-identity-test-" + std::to_string(getpid());
  struct Expect {
    std::string rel, container_id, runtime, pod_uid, qos;
  };
  const Expect cases[] = {
      {base + "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" +
           std::string("5a0c1f9e_2b7d_4c1a_9e3f_77aa55bb33cc") + ".slice/cri-containerd-" + kId + ".scope",
       kId, "containerd", kUid, "burstable"},
      {base + "/kubepods/besteffort/pod" + kUid2 + "/" + kId, kId, "containerd", kUid2, "besteffort"},
      {base + "/system.slice/docker-" + kId + ".scope", kId, "docker", "", ""},
      {base + "/plain", "", "", "", ""},
  };
  CgroupResolver resolver(CgroupResolverOptions{fs.root(), 200'000, 0ms, nullptr});
  for (const Expect& c : cases) {
    TestCgroup cgroup(fs.root(), c.rel);
    Child child;
    ASSERT_TRUE(child.move_to(cgroup.path())) << c.rel;
    // The kernel's view of the child: its cgroup v2 path is ours (relative to the cgroup
    // namespace root, which is the mount's root here).
    std::string proc = test::read_file("/proc/" + std::to_string(child.pid()) + "/cgroup");
    EXPECT_TRUE(cgroup_path_from_proc(proc).ends_with(c.rel)) << proc;
    Identity id = resolver.resolve(cgroup.id());
    EXPECT_EQ(id.cgroup_path, c.rel);
    EXPECT_EQ(id.container_id, c.container_id) << c.rel;
    EXPECT_EQ(id.container_runtime, c.runtime) << c.rel;
    EXPECT_EQ(id.pod_uid, c.pod_uid) << c.rel;
    EXPECT_EQ(id.qos_class, c.qos) << c.rel;
  }
  rmdir((fs.root() + base).c_str());
}

TEST(IdentityCgroup, UnknownIdsGiveNoPathAndWalksAreRateLimited) {
  REQUIRE_ROOT_FOR_CGROUPS();
  Cgroup2 fs;
  ASSERT_FALSE(fs.root().empty());
  CgroupResolver resolver(CgroupResolverOptions{fs.root(), 200'000, 60s, nullptr});
  EXPECT_EQ(resolver.resolve(~0ull).cgroup_path, "");
  EXPECT_EQ(resolver.resolve(~0ull - 1).cgroup_path, "");
  EXPECT_EQ(resolver.walks(), 1u);  // the second miss came within min_walk_interval
  struct stat st {};
  ASSERT_EQ(stat(fs.root().c_str(), &st), 0);
  EXPECT_EQ(resolver.resolve(st.st_ino).cgroup_path, "/");  // found by the first walk: no new one
  EXPECT_EQ(resolver.walks(), 1u);
}

// A container that calls and exits at once: its cgroup is gone before its alert is resolved. A
// refresh made while it existed still names it; two walks later it is forgotten.
TEST(IdentityCgroup, ARefreshedCgroupIsStillKnownOnceRemoved) {
  REQUIRE_ROOT_FOR_CGROUPS();
  Cgroup2 fs;
  ASSERT_FALSE(fs.root().empty());
  std::string base = "/seam-identity-gone-" + std::to_string(getpid());
  std::string rel = base + "/" + kId;
  uint64_t id = 0;
  CgroupResolver resolver(CgroupResolverOptions{fs.root(), 200'000, 60s, nullptr});
  {
    TestCgroup cgroup(fs.root(), rel);
    id = cgroup.id();
    resolver.refresh();
  }
  ASSERT_FALSE(std::filesystem::exists(fs.root() + rel));
  Identity gone = resolver.resolve(id);
  EXPECT_EQ(gone.cgroup_path, rel);
  EXPECT_EQ(gone.container_id, kId);
  EXPECT_EQ(resolver.walks(), 1u);  // the refresh's: the resolve found it without walking

  CgroupResolver later(CgroupResolverOptions{fs.root(), 200'000, 60s, nullptr});
  {
    TestCgroup cgroup(fs.root(), rel);
    id = cgroup.id();
    later.refresh();
  }
  later.refresh();  // the removed cgroup is now only in the walk before
  later.refresh();  // ... and now in neither
  EXPECT_EQ(later.resolve(id).cgroup_path, "");
  EXPECT_EQ(later.walks(), 4u);  // a refresh does not hold back the walk of a miss
}

std::string pod_list(const std::vector<std::array<std::string, 3>>& pods) {
  std::string s = R"({"kind":"PodList","apiVersion":"v1","metadata":{},"items":[)";
  for (size_t k = 0; k < pods.size(); ++k) {
    if (k) s += ",";
    s += R"({"metadata":{"name":")" + pods[k][0] + R"(","namespace":")" + pods[k][1] + R"(","uid":")" +
         pods[k][2] + R"("},"spec":{},"status":{"phase":"Running"}})";
  }
  return s + "]}";
}

TEST(IdentityPods, ParsesAPodList) {
  auto pods = parse_pod_list(pod_list({{"trainer-0", "ml", kUid}, {"web", "default", kUid2}}));
  ASSERT_TRUE(pods.ok()) << pods.error();
  ASSERT_EQ(pods->size(), 2u);
  EXPECT_EQ(pods->at(kUid).name, "trainer-0");
  EXPECT_EQ(pods->at(kUid).namespace_, "ml");
  EXPECT_EQ(pods->at(kUid2).namespace_, "default");
  EXPECT_EQ(parse_pod_list("[]").error(), "pod list: not a JSON object");
  EXPECT_EQ(parse_pod_list("{}").error(), "pod list: no \"items\" array");
  EXPECT_EQ(parse_pod_list("{\"items\":[{\"metadata\":{\"name\":\"x\"}}]}")->size(), 0u);
}

TEST(IdentityPods, NamesComeFromTheKubeletCachedAndRefreshedForNewPods) {
  std::mutex mu;
  std::string body = pod_list({{"trainer-0", "ml", kUid}});
  std::string authorization;
  test::TestHttpServer kubelet([&](const test::HttpRequest& req) {
    std::lock_guard lock(mu);
    authorization = req.header("Authorization");
    if (req.path != "/pods") return test::HttpReply{404, "", false};
    return test::HttpReply{200, body, false};
  });
  PodDirectoryOptions o;
  o.url = kubelet.url("/pods");
  o.headers = {"Authorization: Bearer t"};
  o.min_refetch = 0ms;
  PodDirectory pods(o);
  auto first = pods.lookup(kUid);
  ASSERT_TRUE(first.has_value()) << pods.last_error();
  EXPECT_EQ(first->name, "trainer-0");
  EXPECT_EQ(first->namespace_, "ml");
  EXPECT_EQ(pods.fetches(), 1u);
  EXPECT_EQ(pods.lookup(kUid)->name, "trainer-0");
  EXPECT_EQ(pods.fetches(), 1u);  // cached
  {
    std::lock_guard lock(mu);
    EXPECT_EQ(authorization, "Bearer t");
    body = pod_list({{"trainer-0", "ml", kUid}, {"late", "batch", kUid2}});
  }
  auto late = pods.lookup(kUid2);  // unknown: refetched
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(late->name, "late");
  EXPECT_EQ(pods.fetches(), 2u);
  EXPECT_FALSE(pods.lookup("00000000-0000-0000-0000-000000000000").has_value());
}

TEST(IdentityPods, AFailedFetchKeepsTheLastGoodList) {
  std::atomic<bool> fail{false};
  test::TestHttpServer kubelet([&](const test::HttpRequest&) {
    if (fail) return test::HttpReply{500, "", false};
    return test::HttpReply{200, pod_list({{"a", "ns", kUid}}), false};
  });
  PodDirectoryOptions o;
  o.url = kubelet.url("/pods");
  o.refresh = 0ms;  // every lookup refetches
  PodDirectory pods(o);
  EXPECT_EQ(pods.lookup(kUid)->name, "a");
  fail = true;
  EXPECT_EQ(pods.lookup(kUid)->name, "a");
  EXPECT_EQ(pods.last_error(), "pod list: HTTP 500");
}

TEST(IdentityCgroup, ResolverAddsPodNamesFromTheKubelet) {
  REQUIRE_ROOT_FOR_CGROUPS();
  Cgroup2 fs;
  ASSERT_FALSE(fs.root().empty());
  test::TestHttpServer kubelet([&](const test::HttpRequest&) {
    return test::HttpReply{200, pod_list({{"trainer-0", "ml", kUid}}), false};
  });
  PodDirectoryOptions po;
  po.url = kubelet.url("/pods");
  auto pods = std::make_shared<PodDirectory>(po);
  std::string rel = "/seam-identity-pods-" + std::to_string(getpid()) + "/kubepods/pod" + kUid + "/" + kId;
  TestCgroup cgroup(fs.root(), rel);
  CgroupResolver resolver(CgroupResolverOptions{fs.root(), 200'000, 0ms, pods});
  Identity id = resolver.resolve(cgroup.id());
  EXPECT_EQ(id.pod_uid, kUid);
  EXPECT_EQ(id.pod_name, "trainer-0");
  EXPECT_EQ(id.pod_namespace, "ml");
}

}  // namespace
}  // namespace seam::runtime
