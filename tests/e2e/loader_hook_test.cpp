// The dynamic loader's hook against the real ld.so: a process's libraries are named once it
// has mapped them (at start and at dlopen, not before), names marked seen are not sent again
// for the same cgroup, and forgetting makes them new.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "compiler/build/clang_runner.hpp"
#include "runtime/run/event_reader.hpp"
#include "runtime/run/library_hub.hpp"
#include "runtime/run/loader_hook.hpp"
#include "runtime/run/loader_record.hpp"
#include "runtime/run/prebuilt_hook.hpp"
#include "runtime/run/start_ahead.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

using namespace std::chrono_literals;

// cuda_caller LIB 0 0: loads LIB, makes no call, exits once stdin closes.
pid_t run_loading(const std::string& lib) {
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    std::string caller = std::string(SEAM_FIXTURE_DIR) + "/cuda_caller";
    execl(caller.c_str(), caller.c_str(), lib.c_str(), "0", "0", nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

struct Seen {
  int records = 0;
  uint64_t cgroup = 0;
  std::vector<std::string> names;
};

// Every loader record of `pid` in the ring now.
Seen records_of(EventReader& reader, pid_t pid) {
  Seen seen;
  reader.consume([&](std::span<const uint8_t> bytes) {
    std::optional<LoaderRecord> r = parse_loader_record(bytes);
    if (!r || r->pid != pid) return;
    ++seen.records;
    seen.cgroup = r->cgroup;
    for (const LoaderName& n : r->names) seen.names.emplace_back(n.name);
  });
  return seen;
}

bool has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A ring, its one reader, and the hook writing into it, following the host's loaders.
struct Hooked {
  int ring = -1;
  std::unique_ptr<EventReader> reader;
  LibraryHub libraries{std::nullopt};  // outlives the hook, which unsubscribes from it
  std::unique_ptr<LoaderHook> hook;
  std::vector<std::string> warnings;
  Hooked() = default;
  Hooked(const Hooked&) = delete;
  Hooked& operator=(const Hooked&) = delete;
  ~Hooked() {
    hook.reset();
    reader.reset();
    if (ring >= 0) close(ring);
  }
};

// Fills `h` with a ring of `ring_bytes` and the hook loaded, attached to no loader yet.
void load_hook(Hooked& h, uint32_t ring_bytes) {
  h.ring = create_event_ring(ring_bytes);
  ASSERT_GE(h.ring, 0);
  h.reader = std::make_unique<EventReader>(h.ring);
  ASSERT_TRUE(h.reader->ok()) << h.reader->error();
  Result<std::unique_ptr<LoaderHook>> hook = LoaderHook::start(h.ring);
  ASSERT_TRUE(hook) << hook.error();
  h.hook = std::move(*hook);
}

// load_hook(), then the hook attached to at least one loader, following the host's.
void hook_up(Hooked& h, uint32_t ring_bytes) {
  ASSERT_NO_FATAL_FAILURE(load_hook(h, ring_bytes));
  h.hook->follow(h.libraries, [&h](const std::string& why) { h.warnings.push_back(why); });
  ASSERT_GE(h.hook->attached(), 1u) << (h.warnings.empty() ? "" : h.warnings[0]);
}

TEST(LoaderHook, NamesWhatAProcessLoadedOnceUntilForgotten) {
  SEAM_REQUIRE_ROOT();
  Hooked h;
  ASSERT_NO_FATAL_FAILURE(hook_up(h, 1u << 22));

  test::TempDir dir;
  std::filesystem::create_directories(dir.path() + "/new");
  std::string lib = dir.path() + "/new/libcudart.so.12";
  std::filesystem::copy_file(std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12", lib);

  pid_t first = run_loading(lib);
  Seen one = records_of(*h.reader, first);
  EXPECT_TRUE(has(one.names, lib)) << one.records << " records";
  // One record at start (its libc among the names), one at the dlopen; none at RT_ADD.
  EXPECT_LE(one.records, 2);
  EXPECT_EQ(std::count(one.names.begin(), one.names.end(), lib), 1);

  for (const std::string& name : one.names) h.hook->mark_seen(one.cgroup, name);
  pid_t second = run_loading(lib);
  Seen two = records_of(*h.reader, second);
  EXPECT_EQ(two.records, 0) << "names marked seen for this cgroup were sent again: " << two.names.size();

  h.hook->forget_seen();
  pid_t third = run_loading(lib);
  EXPECT_TRUE(has(records_of(*h.reader, third).names, lib));
  EXPECT_EQ(h.hook->lost(), 0u);
}

// seam run attaches its own loader and the system's on the thread that loads the hook, before
// follow() (so that the first uprobe's grace-period wait passes beside the end of the build): a
// process run with seam's loader is named at once, each file is attached once however often it is
// found, and with --pid only seam's own loader is attached.
TEST(LoaderHook, StartLoadersAttachBeforeFollowAndOnce) {
  SEAM_REQUIRE_ROOT();
  Hooked h;
  ASSERT_NO_FATAL_FAILURE(load_hook(h, 1u << 22));
  Result<bool> first = h.hook->attach_start_loaders();
  ASSERT_TRUE(first) << first.error();
  EXPECT_TRUE(*first);
  size_t links = h.hook->attached();
  EXPECT_GE(links, 1u);
  Result<bool> again = h.hook->attach_start_loaders();
  ASSERT_TRUE(again) << again.error();
  EXPECT_FALSE(*again) << "attached twice";
  EXPECT_EQ(h.hook->attached(), links);

  Result<std::unique_ptr<LoaderHook>> one = LoaderHook::start(h.ring, getpid());
  ASSERT_TRUE(one) << one.error();
  Result<bool> own = (*one)->attach_start_loaders();
  ASSERT_TRUE(own) << own.error();
  EXPECT_EQ((*one)->attached(), 1u) << "a hook for one process attached more than its loader";

  test::TempDir dir;
  std::string lib = dir.path() + "/libcudart.so.12";
  std::filesystem::copy_file(std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12", lib);
  EXPECT_TRUE(has(records_of(*h.reader, run_loading(lib)).names, lib));
}

// seam run's ring and hook, set up while clang builds: the hook attaches its loaders only once
// let go (the build's first part is done), then names a process run with seam's loader in the
// ring the session takes over; one never let go (a failed build) attaches none and closes.
TEST(StartAhead, TheHookAttachesWhenLetGoAndWritesIntoTheRingTakenOver) {
  SEAM_REQUIRE_ROOT();
  std::future<Result<std::unique_ptr<LoaderHook>>> never_let_go;
  {
    StartAhead dropped(1u << 16, std::nullopt);
    ASSERT_GE(dropped.ring_fd(), 0);
    never_let_go = dropped.take_hook();
  }  // as a failed build leaves it: its ring closed, its hook's thread told to attach nothing
  Result<std::unique_ptr<LoaderHook>> idle = never_let_go.get();
  ASSERT_TRUE(idle) << idle.error();
  EXPECT_EQ((*idle)->attached(), 0u);
  idle->reset();
  StartAhead ahead(1u << 22, std::nullopt);
  ASSERT_GE(ahead.ring_fd(), 0);
  EXPECT_EQ(ahead.ring_bytes(), 1u << 22);
  std::future<Result<std::unique_ptr<LoaderHook>>> loading = ahead.take_hook();
  ASSERT_TRUE(loading.valid());
  ahead.attach_loaders();
  ahead.attach_loaders();  // a second go changes nothing
  Result<std::unique_ptr<LoaderHook>> hook = loading.get();
  ASSERT_TRUE(hook) << hook.error();
  EXPECT_GE((*hook)->attached(), 1u);

  int ring = ahead.take_ring();
  EXPECT_EQ(ahead.ring_fd(), -1);
  EventReader reader(ring);
  ASSERT_TRUE(reader.ok()) << reader.error();
  test::TempDir dir;
  std::string lib = dir.path() + "/libcudart.so.12";
  std::filesystem::copy_file(std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12", lib);
  EXPECT_TRUE(has(records_of(reader, run_loading(lib)).names, lib));
  hook->reset();
  close(ring);
}

// The map of marks is allocated as names are marked; once it is full, the next mark empties it
// and is kept, so a long run whose cgroups came and went still stops the names it acts on.
TEST(LoaderHook, AFullMapOfMarksStartsOverAndKeepsTheNewMark) {
  SEAM_REQUIRE_ROOT();
  Hooked h;
  ASSERT_NO_FATAL_FAILURE(hook_up(h, 1u << 22));
  uint32_t capacity = h.hook->seen_capacity();
  ASSERT_GT(capacity, 0u);

  test::TempDir dir;
  std::string lib = dir.path() + "/libcudart.so.12";
  std::filesystem::copy_file(std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12", lib);
  Seen one = records_of(*h.reader, run_loading(lib));
  ASSERT_TRUE(has(one.names, lib)) << one.records << " records";
  // Fill the map with marks of a cgroup that no process is in.
  for (uint32_t i = 0; i < capacity; ++i) h.hook->mark_seen(~0ull, "/gone/lib" + std::to_string(i) + ".so");
  for (const std::string& name : one.names) h.hook->mark_seen(one.cgroup, name);
  Seen two = records_of(*h.reader, run_loading(lib));
  EXPECT_EQ(two.records, 0) << "names marked into a full map were sent again: " << two.names.size();
}

// A process may send at most 64 records a second (any process can call the loader's hook with
// names of its own making): one that dlopens 100 new files in a burst gets at most 64 through,
// and the rest are counted lost.
TEST(LoaderHook, AProcessSendsAtMostItsBudgetAndTheRestAreCountedLost) {
  SEAM_REQUIRE_ROOT();
  Hooked h;
  ASSERT_NO_FATAL_FAILURE(hook_up(h, 1u << 23));

  test::TempDir dir;
  constexpr int kFiles = 100;
  std::vector<std::string> copies;
  for (int i = 0; i < kFiles; ++i) {
    copies.push_back(dir.path() + "/libburst" + std::to_string(i) + ".so");
    std::filesystem::copy_file(std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12", copies.back());
  }
  pid_t child = fork();
  if (child == 0) {
    for (const std::string& c : copies)
      if (!dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) _exit(1);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  Seen seen = records_of(*h.reader, child);
  EXPECT_LE(seen.records, 64);
  EXPECT_GE(seen.records, 32) << "the budget let too few through";
  EXPECT_GE(h.hook->lost(), static_cast<uint64_t>(kFiles - 64));
  std::optional<std::string> told = h.hook->newly_lost();
  ASSERT_TRUE(told);
  EXPECT_NE(told->find("notices"), std::string::npos) << *told;
  EXPECT_FALSE(h.hook->newly_lost()) << "told twice";
}

// The hook's object came with seam (cli/prebuild/, built with seam's build): a cold start (empty
// object cache) runs clang once, for its rules, not a second time for the hook.
TEST(LoaderHook, ComesBuiltWithSeamSoAColdStartRunsClangOnceForItsRules) {
  SEAM_REQUIRE_ROOT();
  if (prebuilt_loader_hook().empty()) {
    if (test::in_ci()) FAIL() << "CI's build machine has clang and kernel BTF: the hook must come prebuilt";
    GTEST_SKIP()
        << "this build machine could not build the hook (no clang or kernel BTF): seam builds it at start";
  }
  test::TempDir dir;
  const std::string log = dir.path() + "/clang-runs";
  const std::string clang = build::find_clang();
  ASSERT_FALSE(clang.empty());
  std::string wrapper = test::write_logging_clang(dir, clang, log);
  std::string rules = dir.write("one.seam", "use cuda\nrule sync on cuda.stream_sync alert info \"s\"\n");
  setenv("SEAM_CLANG", wrapper.c_str(), 1);
  setenv("SEAM_CACHE_DIR", (dir.path() + "/cache").c_str(), 1);
  setenv("SEAM_BUILD_PARTS", "1", 1);  // one rule: built whole, as it would be anyway
  {
    test::SeamRun seam(dir.path(), {rules});
    EXPECT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
        << seam.stderr_text();
    EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  }
  unsetenv("SEAM_CLANG");
  unsetenv("SEAM_CACHE_DIR");
  unsetenv("SEAM_BUILD_PARTS");
  std::ifstream in(log);
  std::vector<std::string> runs;
  for (std::string line; std::getline(in, line);) runs.push_back(line);
  EXPECT_EQ(runs.size(), 1u) << "clang ran for: " << ::testing::PrintToString(runs);
}

}  // namespace
}  // namespace seam::runtime
