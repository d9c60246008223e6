// build_object: clang at run time, #line-mapped errors, and the object cache.
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "compiler/build/build_object.hpp"
#include "compiler/build/clang_prestart.hpp"
#include "compiler/build/kernel_types.hpp"
#include "compiler/build/link_objects.hpp"
#include "compiler/build/object_cache.hpp"
#include "support/test_support.hpp"

namespace seam::build {
namespace {

const char* kSmallProgram = R"(#include "seam_prelude.h"
char LICENSE[] SEC("license") = "GPL";
SEC("uprobe")
int on_call(struct pt_regs *ctx) {
  struct seam_record_header *h = seam_reserve(1, sizeof(*h));
  if (!h) return 0;
  seam_submit(h);
  return 0;
}
)";

#define SKIP_WITHOUT_TOOLS()                                                                     \
  do {                                                                                           \
    if (find_clang().empty()) GTEST_SKIP() << "no clang on PATH (clang, clang-14..16)";          \
    if (!std::filesystem::exists(kVmlinuxBtfPath)) GTEST_SKIP() << kVmlinuxBtfPath << " absent"; \
  } while (0)

// A fake clang: runs the real one the first time, fails every later time.
std::string write_counting_clang(const test::TempDir& dir, const std::string& real_clang) {
  std::string count = dir.path() + "/runs";
  std::string script = dir.write("fake-clang",
                                 "#!/bin/sh\n"
                                 "echo run >> " +
                                     count +
                                     "\n"
                                     "if [ $(wc -l < " +
                                     count +
                                     ") -gt 1 ]; then echo 'ran twice' >&2; exit 3; fi\n"
                                     "exec " +
                                     real_clang + " \"$@\"\n");
  chmod(script.c_str(), 0755);
  return script;
}

TEST(BuildObject, CompilesAndCachesWithoutRunningClangAgain) {
  SKIP_WITHOUT_TOOLS();
  test::TempDir dir;
  std::string real = find_clang();
  setenv("SEAM_CLANG", write_counting_clang(dir, real).c_str(), 1);
  BuildOptions options;
  options.cache_dir = dir.path() + "/cache";

  BuildResult first = build_object(kSmallProgram, options);
  ASSERT_TRUE(first.object.ok()) << first.object.error() << "\n"
                                 << first.clang_stderr << "\n"
                                 << first.command;
  EXPECT_FALSE(first.from_cache);
  EXPECT_GT(first.object->size(), 100u);
  EXPECT_NE(first.command.find("-target bpf -O2 -g -D__TARGET_ARCH_x86"), std::string::npos) << first.command;
  EXPECT_TRUE(first.work_dir.empty()) << "work dir kept after success";

  BuildResult second = build_object(kSmallProgram, options);  // the fake clang would fail now
  unsetenv("SEAM_CLANG");
  ASSERT_TRUE(second.object.ok()) << second.object.error() << second.clang_stderr;
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(*second.object, *first.object);
  EXPECT_EQ(second.compile_ms, 0);
  EXPECT_EQ(test::read_file(dir.path() + "/runs"), "run\n");
}

// The build goes on once clang has renamed its object into place, not when clang has exited: a
// clang that stays 2 s after writing its object (as clang's exit tears down its memory, for
// milliseconds) is still running when the build returns, and is reaped when it ends.
TEST(BuildObject, TheBuildTakesTheObjectOnceItIsInPlaceWithoutWaitingForClangsExit) {
  SKIP_WITHOUT_TOOLS();
  test::TempDir dir;
  const std::string pid_file = dir.path() + "/pid";
  std::string script = dir.write("slow-exit-clang", "#!/bin/sh\necho $$ > " + pid_file + "\n" + find_clang() +
                                                        " \"$@\" || exit $?\nexec sleep 2\n");
  chmod(script.c_str(), 0755);
  setenv("SEAM_CLANG", script.c_str(), 1);
  BuildOptions options;
  options.cache_dir = dir.path() + "/cache";
  BuildResult built = build_object(kSmallProgram, options);
  unsetenv("SEAM_CLANG");
  ASSERT_TRUE(built.object.ok()) << built.object.error() << "\n" << built.clang_stderr;
  pid_t pid = -1;
  std::ifstream(pid_file) >> pid;
  ASSERT_GT(pid, 0);
  EXPECT_EQ(kill(pid, 0), 0) << "the build waited for the compiler's exit";
  EXPECT_TRUE(test::wait_until([&] { return kill(pid, 0) != 0; }, std::chrono::seconds(10)))
      << "pid " << pid << " was not reaped";
}

TEST(BuildObject, CacheKeyFollowsSourceAndKernelTypes) {
  SKIP_WITHOUT_TOOLS();
  test::TempDir dir;
  BuildOptions options;
  options.cache_dir = dir.path();
  BuildResult a = build_object(kSmallProgram, options);
  ASSERT_TRUE(a.object.ok()) << a.object.error() << a.clang_stderr;
  BuildResult changed_source = build_object(std::string(kSmallProgram) + "\n// changed\n", options);
  ASSERT_TRUE(changed_source.object.ok());
  EXPECT_FALSE(changed_source.from_cache);
  EXPECT_NE(changed_source.cache_key, a.cache_key);
  options.kernel_types = {"pt_regs", "task_struct"};
  BuildResult changed_types = build_object(kSmallProgram, options);
  ASSERT_TRUE(changed_types.object.ok());
  EXPECT_FALSE(changed_types.from_cache);
  EXPECT_NE(changed_types.cache_key, a.cache_key);
  options.kernel_types = {"pt_regs"};
  options.use_cache = false;
  BuildResult uncached = build_object(kSmallProgram, options);
  ASSERT_TRUE(uncached.object.ok());
  EXPECT_FALSE(uncached.from_cache);
  EXPECT_EQ(uncached.cache_key, a.cache_key);
  // Written atomically: only finished objects in the cache directory.
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    EXPECT_EQ(entry.path().extension(), ".o") << entry.path();
}

TEST(BuildObject, ClangErrorsPointAtTheRuleFileThroughLineDirectives) {
  SKIP_WITHOUT_TOOLS();
  test::TempDir dir;
  BuildOptions options;
  options.cache_dir = dir.path();
  options.keep_work_dir = true;
  std::string source = std::string("#include \"seam_prelude.h\"\n") +
                       "#line 7 \"rules/x.seam\"\n"
                       "int broken(void) { return 1 +; }\n";
  BuildResult r = build_object(source, options);
  ASSERT_FALSE(r.object.ok());
  ASSERT_FALSE(r.errors.empty()) << r.clang_stderr;
  EXPECT_EQ(r.errors[0].file, "rules/x.seam");
  EXPECT_EQ(r.errors[0].line, 7u);
  EXPECT_GT(r.errors[0].column, 0u);
  EXPECT_NE(r.errors[0].message.find("expected expression"), std::string::npos) << r.errors[0].message;
  // Asked to, the work dir stays so the logged command can be re-run by hand.
  ASSERT_FALSE(r.work_dir.empty());
  EXPECT_TRUE(std::filesystem::exists(r.work_dir + "/seam_program.bpf.c"));
  EXPECT_NE(r.command.find(r.work_dir), std::string::npos);
  std::filesystem::remove_all(r.work_dir);
  EXPECT_TRUE(std::filesystem::directory_iterator(dir.path()) == std::filesystem::directory_iterator())
      << "a failed build must not be cached";
}

// A program of two parts (SEAM_IN_PART, seam_prelude.h) sharing a map and a global.
const char* kTwoPartProgram = R"(#include "seam_prelude.h"
#if SEAM_IN_PART(0)
char LICENSE[] SEC("license") = "GPL";
#endif
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 1);
} shared_counts SEC(".maps") SEAM_SHARED;
SEAM_SHARED const volatile __u64 shared_setting = 0;
SEAM_INLINE int count(void) {
  __u32 zero = 0;
  __u64 *n = bpf_map_lookup_elem(&shared_counts, &zero);
  if (n) __sync_fetch_and_add(n, shared_setting + 1);
  return 0;
}
#if SEAM_IN_PART(0)
SEC("uprobe")
int first(struct pt_regs *ctx) { return count(); }
#endif
#if SEAM_IN_PART(1)
SEC("uprobe")
int second(struct pt_regs *ctx) { return count(); }
#endif
)";

TEST(BuildObject, PartsBuiltAtOnceLinkIntoOneObjectWithTheirCommandAndTheirOwnCacheKey) {
  SKIP_WITHOUT_TOOLS();
  test::TempDir dir;
  BuildOptions options;
  options.cache_dir = dir.path();
  options.parts = 2;
  BuildResult parted = build_object(kTwoPartProgram, options);
  ASSERT_TRUE(parted.object.ok()) << parted.object.error() << "\n" << parted.clang_stderr;
  for (const char* part :
       {"-DSEAM_PARTS=2 -DSEAM_PART=0", "-DSEAM_PARTS=2 -DSEAM_PART=1", "&& bpftool gen object"})
    EXPECT_NE(parted.command.find(part), std::string::npos) << part << " in " << parted.command;
  bpf_object* obj = bpf_object__open_mem(parted.object->data(), parted.object->size(), nullptr);
  ASSERT_NE(obj, nullptr);
  std::vector<std::string> programs, maps;
  bpf_program* prog = nullptr;
  bpf_object__for_each_program(prog, obj) programs.push_back(bpf_program__name(prog));
  bpf_map* map = nullptr;
  bpf_object__for_each_map(map, obj) maps.push_back(bpf_map__name(map));
  bpf_object__close(obj);
  EXPECT_EQ(programs, (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(std::count(maps.begin(), maps.end(), "shared_counts"), 1) << "the parts' copies are one map";

  options.parts = 1;
  BuildResult whole = build_object(kTwoPartProgram, options);
  ASSERT_TRUE(whole.object.ok()) << whole.object.error();
  EXPECT_FALSE(whole.from_cache) << "one object and a linked one are cached apart";
  EXPECT_NE(whole.cache_key, parted.cache_key);
  EXPECT_EQ(whole.command.find("SEAM_PART"), std::string::npos) << whole.command;
}

// A prebuilt object (cli/prebuild/) that a program calls into: its hidden function is linked into
// the object, which libbpf then opens (an extern left unresolved makes it refuse the object), and
// its bytes are in the cache key.
const char* kCallsAnotherObject = R"(#include "seam_prelude.h"
int seam_test_twice(__u64 x) __hidden;
#if SEAM_IN_PART(0)
char LICENSE[] SEC("license") = "GPL";
SEC("uprobe")
int on_call(struct pt_regs *ctx) {
  return seam_test_twice(PT_REGS_PARM1(ctx)) == 4;
}
#endif
)";

bool opens(const std::vector<uint8_t>& object) {
  bpf_object* obj = bpf_object__open_mem(object.data(), object.size(), nullptr);
  if (!obj) return false;
  bpf_object__close(obj);
  return true;
}

TEST(BuildObject, AnObjectLinkedWithGivesTheProgramItsHiddenFunctionAndIsInTheCacheKey) {
  SKIP_WITHOUT_TOOLS();
  test::TempDir dir;
  BuildOptions options;
  options.cache_dir = dir.path();
  // Its globals weak, as seam's prebuilt functions' are (prebuilt_bpf.cpp): the program's copies win.
  BuildResult library = build_object(R"(#define SEAM_PARTS 1
#define SEAM_PART 0
#include "seam_prelude.h"
__hidden __noinline int seam_test_twice(__u64 x) { return (int)(x * 2); }
)",
                                     options);
  ASSERT_TRUE(library.object.ok()) << library.object.error() << "\n" << library.clang_stderr;

  BuildResult alone = build_object(kCallsAnotherObject, options);
  ASSERT_TRUE(alone.object.ok()) << alone.object.error() << "\n" << alone.clang_stderr;
  EXPECT_FALSE(opens(*alone.object)) << "the call is left unresolved without the other object";

  for (int parts : {1, 2}) {
    options.parts = parts;
    options.link_with = {{"twice", *library.object}};
    BuildResult linked = build_object(kCallsAnotherObject, options);
    ASSERT_TRUE(linked.object.ok()) << linked.object.error() << "\n" << linked.clang_stderr;
    EXPECT_FALSE(linked.from_cache) << parts << " parts";
    EXPECT_TRUE(opens(*linked.object)) << parts << " parts";
    // The command to re-run by hand links it too.
    EXPECT_NE(linked.command.find("&& bpftool gen object"), std::string::npos) << linked.command;
    EXPECT_NE(linked.command.find("twice.bpf.o"), std::string::npos) << linked.command;

    std::vector<uint8_t> other = *library.object;
    other.push_back(0);
    options.link_with = {{"twice", other}};
    EXPECT_NE(build_object(kCallsAnotherObject, options).cache_key, linked.cache_key) << parts << " parts";
  }
}

// seam run attaches the loader hook once the first part is built (runtime/run/start_ahead.hpp):
// a build that runs clang says so once, whatever its parts, and a cache hit, which runs none,
// does not.
TEST(BuildObject, TheFirstPartBuiltIsToldOnceAndACacheHitTellsNothing) {
  SKIP_WITHOUT_TOOLS();
  test::TempDir dir;
  int told = 0;
  BuildOptions options;
  options.cache_dir = dir.path();
  options.on_first_part = [&told] { ++told; };
  for (int parts : {2, 1}) {
    told = 0;
    options.parts = parts;
    BuildResult built = build_object(kTwoPartProgram, options);
    ASSERT_TRUE(built.object.ok()) << built.object.error() << "\n" << built.clang_stderr;
    ASSERT_FALSE(built.from_cache);
    EXPECT_EQ(told, 1) << parts << " parts";
    BuildResult hit = build_object(kTwoPartProgram, options);
    ASSERT_TRUE(hit.from_cache);
    EXPECT_EQ(told, 1) << "a cache hit built nothing";
  }
}

// Whichever part finishes first is the one told about: a clang that holds part 0 back (it waits,
// then leaves a mark, before it compiles) finds part 1 told first.
TEST(BuildObject, TheFirstPartToFinishIsToldWhicheverPartItIs) {
  SKIP_WITHOUT_TOOLS();
  test::TempDir dir;
  const std::string marker = dir.path() + "/part0-went-on";
  std::string wrapper = dir.write("slow-part0-clang",
                                  "#!/bin/sh\n"
                                  "input=$(cat)\n"
                                  "case \"$input\" in *'SEAM_PART 0'*) sleep 2; touch " +
                                      marker +
                                      ";; esac\n"
                                      "printf '%s\\n' \"$input\" | exec " +
                                      find_clang() + " \"$@\"\n");
  chmod(wrapper.c_str(), 0755);
  setenv("SEAM_CLANG", wrapper.c_str(), 1);
  BuildOptions options;
  options.cache_dir = dir.path() + "/cache";
  options.parts = 2;
  int told = 0;
  bool part0_went_on = true;
  options.on_first_part = [&] {
    ++told;
    part0_went_on = std::filesystem::exists(marker);
  };
  BuildResult built = build_object(kTwoPartProgram, options);
  unsetenv("SEAM_CLANG");
  ASSERT_TRUE(built.object.ok()) << built.object.error() << "\n" << built.clang_stderr;
  EXPECT_EQ(told, 1);
  EXPECT_FALSE(part0_went_on) << "told only once part 0 was done";
}

TEST(LinkObjects, AnInputThatIsNoBpfObjectIsRefusedByName) {
  test::TempDir dir;
  std::string bogus = dir.write("part0.bpf.o", "not an ELF file");
  Result<void> linked = link_bpf_objects({bogus}, dir.path() + "/out.o");
  ASSERT_FALSE(linked);
  EXPECT_NE(linked.error().find(bogus + " is not a BPF object"), std::string::npos) << linked.error();
}

// A map both parts define without SEAM_SHARED: libbpf's linker refuses it, and says why.
TEST(LinkObjects, PartsThatBothDefineOneMapAreRefusedWithLibbpfsWords) {
  SKIP_WITHOUT_TOOLS();
  std::string source = kTwoPartProgram;
  source.replace(source.find("} shared_counts SEC(\".maps\") SEAM_SHARED;"),
                 std::string("} shared_counts SEC(\".maps\") SEAM_SHARED;").size(),
                 "} shared_counts SEC(\".maps\");");
  BuildOptions options;
  options.use_cache = false;
  options.parts = 2;
  BuildResult r = build_object(source, options);
  ASSERT_FALSE(r.object.ok());
  EXPECT_NE(r.object.error().find("cannot link "), std::string::npos) << r.object.error();
  EXPECT_NE(r.object.error().find("(libbpf: "), std::string::npos) << r.object.error();
  EXPECT_NE(r.object.error().find("shared_counts"), std::string::npos) << r.object.error();
}

TEST(BuildObject, AnErrorInCodeThePartsShareIsReportedOnce) {
  SKIP_WITHOUT_TOOLS();
  BuildOptions options;
  options.use_cache = false;
  options.parts = 3;
  std::string source = std::string("#include \"seam_prelude.h\"\n") +
                       "#line 4 \"rules/shared.seam\"\n"
                       "SEAM_INLINE int broken(void) { return 1 +; }\n";
  BuildResult r = build_object(source, options);
  ASSERT_FALSE(r.object.ok());
  ASSERT_EQ(r.errors.size(), 1u) << r.clang_stderr;
  EXPECT_EQ(r.errors[0].file, "rules/shared.seam");
  EXPECT_EQ(r.errors[0].line, 4u);
}

TEST(BuildParts, OneClangBelowTheSizeOnePerCpuAboveItAndTheEnvironmentFirst) {
  unsetenv("SEAM_BUILD_PARTS");
  cpu_set_t cpus;
  ASSERT_EQ(sched_getaffinity(0, sizeof cpus, &cpus), 0);
  int expected = std::clamp(CPU_COUNT(&cpus), 1, kMaxParts);
  EXPECT_EQ(build_parts(kPartsFromBytes - 1), 1);
  EXPECT_EQ(build_parts(kPartsFromBytes), expected);
  setenv("SEAM_BUILD_PARTS", "1", 1);
  EXPECT_EQ(build_parts(kPartsFromBytes * 10), 1);
  setenv("SEAM_BUILD_PARTS", "3", 1);
  EXPECT_EQ(build_parts(10), 3);
  setenv("SEAM_BUILD_PARTS", "99", 1);
  EXPECT_EQ(build_parts(10), kMaxParts);
  setenv("SEAM_BUILD_PARTS", "two", 1);
  EXPECT_EQ(build_parts(10), 1) << "not a number: as if unset";
  unsetenv("SEAM_BUILD_PARTS");
}

size_t build_dirs_in(const std::string& dir) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    n += entry.path().filename().string().rfind("seam-build-", 0) == 0;
  return n;
}

// Builds whose work dirs go to a $TMPDIR of their own, and whose cache is a dir of its own, for
// the life of the object: `options` has the cache dir.
struct PrivateDirs {
  test::TempDir tmp, cache;
  BuildOptions options;
  PrivateDirs() {
    setenv("TMPDIR", tmp.path().c_str(), 1);
    options.cache_dir = cache.path();
  }
  ~PrivateDirs() { unsetenv("TMPDIR"); }
  PrivateDirs(const PrivateDirs&) = delete;
  PrivateDirs& operator=(const PrivateDirs&) = delete;
};

TEST(BuildObject, AFailedBuildLeavesNoWorkDirBehind) {
  SKIP_WITHOUT_TOOLS();
  PrivateDirs dirs;
  BuildOptions& options = dirs.options;
  BuildResult broken = build_object("int broken(void) { return 1 +; }\n", options);
  EXPECT_FALSE(broken.object.ok());
  EXPECT_FALSE(broken.errors.empty()) << broken.clang_stderr;
  EXPECT_TRUE(broken.work_dir.empty());
  EXPECT_EQ(build_dirs_in(dirs.tmp.path()), 0u) << "a failed build leaked its directory";

  setenv("SEAM_CLANG", "/bin/false", 1);  // a compiler that fails without a word
  BuildResult failed = build_object(kSmallProgram, options);
  unsetenv("SEAM_CLANG");
  EXPECT_FALSE(failed.object.ok());
  EXPECT_EQ(failed.object.error(), "clang failed (exit 1)");
  EXPECT_EQ(build_dirs_in(dirs.tmp.path()), 0u);

  setenv("SEAM_KEEP_BUILD_DIR", "1", 1);  // kept on request, for re-running the command
  BuildResult kept = build_object("int broken(void) { return 1 +; }\n", options);
  unsetenv("SEAM_KEEP_BUILD_DIR");
  EXPECT_FALSE(kept.work_dir.empty());
  EXPECT_EQ(build_dirs_in(dirs.tmp.path()), 1u);
}

TEST(BuildObject, ClangRunsUnderMemoryAndTimeLimits) {
  ProcessLimits limits{uint64_t{256} << 20, 7};
  ProcessResult r = run_process({"/bin/sh", "-c", "ulimit -v; ulimit -t"}, 10000, limits);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "262144\n7\n");  // KiB and seconds, as the child sees them

  SKIP_WITHOUT_TOOLS();
  test::TempDir cache;
  BuildOptions options;
  options.cache_dir = cache.path();
  options.use_cache = false;
  options.memory_limit_bytes = uint64_t{16} << 20;  // far too little for clang
  BuildResult starved = build_object(kSmallProgram, options);
  EXPECT_FALSE(starved.object.ok());
  EXPECT_NE(starved.object.error().find(
                "clang ran out of its memory limit (16 MiB, $SEAM_CLANG_MEMORY_MB): the program "
                "is too large"),
            std::string::npos)
      << starved.object.error() << "\n"
      << starved.clang_stderr;
}

TEST(BuildObject, MissingClangIsAnErrorValue) {
  setenv("SEAM_CLANG", "/nonexistent/clang", 1);
  BuildResult r = build_object(kSmallProgram, BuildOptions{});
  unsetenv("SEAM_CLANG");
  EXPECT_FALSE(r.object.ok());
  EXPECT_NE(r.object.error().find("no clang"), std::string::npos) << r.object.error();
  EXPECT_EQ(r.object.code(), ErrorCode::NotFound);
}

TEST(ClangErrors, ParsesErrorsAndFatalErrorsOnly) {
  auto errors = parse_clang_errors(
      "rules/a.seam:3:5: warning: unused variable 'x'\n"
      "rules/a.seam:4:9: error: use of undeclared identifier 'y'\n"
      "/tmp/seam-build-1/seam_prelude.h:1:10: fatal error: 'kernel_types.h' file not found\n"
      "1 error generated.\n");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].file, "rules/a.seam");
  EXPECT_EQ(errors[0].line, 4u);
  EXPECT_EQ(errors[0].column, 9u);
  EXPECT_EQ(errors[0].message, "use of undeclared identifier 'y'");
  EXPECT_EQ(errors[1].message, "'kernel_types.h' file not found");
}

TEST(BuildObject, CompileTimeMinimalTypesVersusWholeVmlinux) {
  SKIP_WITHOUT_TOOLS();
  Result<std::string> full_header = full_kernel_types_header();
  ASSERT_TRUE(full_header) << full_header.error();
  const std::string& full = *full_header;
  Result<std::string> minimal_header = kernel_types_header({"pt_regs"});
  ASSERT_TRUE(minimal_header) << minimal_header.error();
  const std::string& minimal = *minimal_header;
  BuildOptions options;
  options.use_cache = false;
  options.kernel_types_header = minimal;
  BuildResult small = build_object(kSmallProgram, options);
  ASSERT_TRUE(small.object.ok()) << small.object.error() << small.clang_stderr;
  options.kernel_types_header = full;
  BuildResult whole = build_object(kSmallProgram, options);
  ASSERT_TRUE(whole.object.ok()) << whole.object.error() << whole.clang_stderr.substr(0, 2000);
  std::printf(
      "[bench] clang compile, small program: minimal kernel_types.h (%zu bytes) %.0f ms; "
      "whole vmlinux.h (%zu bytes) %.0f ms\n",
      minimal.size(), small.compile_ms, full.size(), whole.compile_ms);
}

}  // namespace
}  // namespace seam::build

namespace seam::build {
namespace {

TEST(ObjectCache, DirectoryFollowsEnvironmentThenPrivileges) {
  const char* saved = std::getenv("SEAM_CACHE_DIR");
  std::string restore = saved ? saved : "";
  setenv("SEAM_CACHE_DIR", "/tmp/seam-cache-here", 1);
  EXPECT_EQ(default_cache_dir(), "/tmp/seam-cache-here");
  unsetenv("SEAM_CACHE_DIR");
  if (geteuid() == 0) {
    EXPECT_EQ(default_cache_dir(), "/var/cache/seam");
  } else {
    setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    EXPECT_EQ(default_cache_dir(), "/tmp/xdg/seam");
  }
  if (!restore.empty()) setenv("SEAM_CACHE_DIR", restore.c_str(), 1);
}

TEST(ObjectCache, IgnoresWhatIsNotAnObject) {
  test::TempDir dir;
  ObjectCache cache(dir.path());
  EXPECT_FALSE(cache.load("missing"));
  dir.write("junk.bpf.o", "not an ELF file");
  EXPECT_FALSE(cache.load("junk"));
  std::vector<uint8_t> elf = {0x7f, 'E', 'L', 'F', 1, 2, 3};
  ASSERT_TRUE(cache.store("good", elf));
  EXPECT_EQ(cache.load("good"), elf);
}

// Issue 13, item 4: an object planted under another key (or copied over an entry) is not
// loaded; each entry carries the key that names it.
TEST(ObjectCache, AnObjectStoredUnderAnotherKeyIsIgnored) {
  test::TempDir dir;
  ObjectCache cache(dir.path());
  std::vector<uint8_t> mine = {0x7f, 'E', 'L', 'F', 1}, theirs = {0x7f, 'E', 'L', 'F', 2};
  ASSERT_TRUE(cache.store("aaaa", mine));
  ASSERT_TRUE(cache.store("bbbb", theirs));
  std::filesystem::copy_file(cache.path_for("bbbb"), cache.path_for("aaaa"),
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_FALSE(cache.load("aaaa"));
  EXPECT_EQ(cache.load("bbbb"), theirs);
  // A bare ELF without the trailer (an older seam's, or one dropped in by hand) is not trusted.
  dir.write("cccc.bpf.o", std::string("\x7f"
                                      "ELF\x01",
                                      5));
  EXPECT_FALSE(cache.load("cccc"));
}

// A cache others may write to is ignored: not read, not written.
TEST(ObjectCache, ADirectoryOthersCanWriteIsIgnored) {
  test::TempDir dir;
  ObjectCache cache(dir.path());
  std::vector<uint8_t> elf = {0x7f, 'E', 'L', 'F', 1};
  ASSERT_TRUE(cache.store("good", elf));
  ASSERT_EQ(chmod(dir.path().c_str(), 01777), 0);
  EXPECT_NE(cache.unsafe_reason().value_or(""), "");
  EXPECT_EQ(*cache.unsafe_reason(), "writable by others (mode 1777)");
  EXPECT_FALSE(cache.load("good"));
  Result<void> refused = cache.store("other", elf);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(),
            "not writing to the object cache " + dir.path() + ": writable by others (mode 1777)");
  EXPECT_EQ(refused.code(), ErrorCode::Denied);
  ASSERT_EQ(chmod(dir.path().c_str(), 0700), 0);
  EXPECT_EQ(cache.load("good"), elf);
}

// Issue 13, item 4: a cache directory another user owns is theirs to fill: root must not load
// what it holds (that user's object replaced a cached one and root loaded it, with no warning).
TEST(ObjectCache, ADirectoryAnotherUserOwnsIsIgnored) {
  SEAM_REQUIRE_ROOT();  // chown to another user
  test::TempDir dir;
  ObjectCache cache(dir.path());
  std::vector<uint8_t> elf = {0x7f, 'E', 'L', 'F', 2};
  ASSERT_TRUE(cache.store("good", elf));
  ASSERT_EQ(chmod(dir.path().c_str(), 0700), 0);
  ASSERT_EQ(chown(dir.path().c_str(), 65534, 65534), 0);
  EXPECT_EQ(cache.unsafe_reason().value_or(""), "owned by uid 65534, not seam's uid 0");
  EXPECT_FALSE(cache.load("good"));
  EXPECT_FALSE(cache.store("other", elf));
  ASSERT_EQ(chown(dir.path().c_str(), 0, 0), 0);
  EXPECT_EQ(cache.load("good"), elf);
}

// This process's children (the clangs a build started and has not reaped).
size_t children() {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string stat = test::read_file(entry.path().string() + "/stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %*c %d", &ppid) == 1 && ppid == getpid()) ++n;
  }
  return n;
}

// After a build, its clangs are gone: killed and reaped when unused, and a clang whose object was
// taken at its rename is reaped by seam's thread as soon as it has exited (it may still be
// tearing down its memory when the build returns).
bool no_children_left() {
  return test::wait_until([] { return children() == 0; }, std::chrono::seconds(10));
}

TEST(ClangPrestart, ItsClangBuildsTheProgramOnACacheMissAndItsDirGoesWithTheBuild) {
  SKIP_WITHOUT_TOOLS();
  PrivateDirs dirs;
  BuildOptions& options = dirs.options;
  ASSERT_TRUE(no_children_left()) << "an earlier test's clang is still there";
  options.prestarted = ClangPrestart::start(1, options);
  ASSERT_NE(options.prestarted, nullptr);
  EXPECT_EQ(build_dirs_in(dirs.tmp.path()), 1u) << "the headers are written with the clangs started";
  EXPECT_EQ(children(), 1u);
  BuildResult built = build_object(kSmallProgram, options);
  ASSERT_TRUE(built.object.ok()) << built.object.error() << "\n" << built.clang_stderr;
  EXPECT_EQ(built.prestarted, 1);
  EXPECT_FALSE(built.from_cache);
  EXPECT_EQ(build_dirs_in(dirs.tmp.path()), 0u);
  EXPECT_TRUE(no_children_left()) << children() << " children";
  EXPECT_EQ(built.command.find("-x c -"), std::string::npos) << "the command builds from the files";
}

TEST(ClangPrestart, ACacheHitOrOtherFlagsKillItsClangsUnusedWithTheirDir) {
  SKIP_WITHOUT_TOOLS();
  PrivateDirs dirs;
  BuildOptions& options = dirs.options;
  ASSERT_TRUE(build_object(kSmallProgram, options).object.ok());
  ASSERT_TRUE(no_children_left()) << "the first build's clang is still there";
  options.prestarted = ClangPrestart::start(2, options);
  ASSERT_NE(options.prestarted, nullptr);
  BuildResult hit = build_object(kSmallProgram, options);
  EXPECT_TRUE(hit.from_cache);
  EXPECT_EQ(hit.prestarted, 0);
  EXPECT_EQ(children(), 0u) << "killed and reaped at the hit, not when the run ends";
  EXPECT_EQ(build_dirs_in(dirs.tmp.path()), 0u);

  options.prestarted = ClangPrestart::start(1, options);
  options.extra_flags = {"-DSEAM_OTHER_FLAG"};  // these clangs would build another object
  BuildResult other = build_object(kSmallProgram, options);
  ASSERT_TRUE(other.object.ok()) << other.object.error();
  EXPECT_FALSE(other.from_cache);
  EXPECT_EQ(other.prestarted, 0);
  EXPECT_TRUE(no_children_left()) << children() << " children";
  EXPECT_EQ(build_dirs_in(dirs.tmp.path()), 0u);
}

TEST(ClangPrestart, APartWithoutAClangStartsOneAndAClangWithoutAPartIsKilled) {
  SKIP_WITHOUT_TOOLS();
  test::TempDir cache;
  BuildOptions options;
  options.cache_dir = cache.path();
  options.use_cache = false;
  options.parts = 2;
  options.prestarted = ClangPrestart::start(1, options);
  BuildResult two = build_object(kTwoPartProgram, options);
  ASSERT_TRUE(two.object.ok()) << two.object.error() << "\n" << two.clang_stderr;
  EXPECT_EQ(two.prestarted, 1);
  bpf_object* obj = bpf_object__open_mem(two.object->data(), two.object->size(), nullptr);
  ASSERT_NE(obj, nullptr);
  size_t programs = 0;
  bpf_program* prog = nullptr;
  bpf_object__for_each_program(prog, obj)++ programs;
  bpf_object__close(obj);
  EXPECT_EQ(programs, 2u) << "each part built its own program";

  options.parts = 1;
  options.prestarted = ClangPrestart::start(2, options);
  BuildResult one = build_object(kTwoPartProgram, options);
  ASSERT_TRUE(one.object.ok()) << one.object.error();
  EXPECT_EQ(one.prestarted, 1);
  EXPECT_TRUE(no_children_left()) << children() << " children";
}

TEST(ClangPrestart, ItsCountIsThePartsOfTheCTheRuleFilesWouldMake) {
  unsetenv("SEAM_BUILD_PARTS");
  EXPECT_EQ(prestart_clangs(0), 1);
  EXPECT_EQ(prestart_clangs(600), 1) << "gil.seam: 0.6 KB of rules, 3.7 KB of C";
  EXPECT_EQ(prestart_clangs(930), 1) << "malloc.seam: 0.9 KB of rules, 3.8 KB of C";
  EXPECT_EQ(prestart_clangs(1500), build_parts(6900)) << "the two-file pair: 1.5 KB of rules, 6.9 KB of C";
  EXPECT_EQ(prestart_clangs(15000), build_parts(71000)) << "the default pack: 15 KB of rules, 71 KB of C";
  setenv("SEAM_BUILD_PARTS", "3", 1);
  EXPECT_EQ(prestart_clangs(0), 3);
  unsetenv("SEAM_BUILD_PARTS");
}

// The temporary name is not predictable and is created with O_EXCL: a link planted where the
// old name (KEY.bpf.o.tmp.PID) would be is never written through.
TEST(ObjectCache, APlantedLinkAtATemporaryNameIsNotFollowed) {
  test::TempDir dir;
  std::string victim = dir.write("victim.txt", "precious\n");
  std::filesystem::create_directories(dir.path() + "/cache");
  ObjectCache cache(dir.path() + "/cache");
  ASSERT_EQ(symlink(victim.c_str(), (cache.path_for("k") + ".tmp." + std::to_string(getpid())).c_str()), 0);
  ASSERT_TRUE(cache.store("k", {0x7f, 'E', 'L', 'F'}));
  EXPECT_EQ(test::read_file(victim), "precious\n");
  EXPECT_EQ(cache.load("k"), (std::vector<uint8_t>{0x7f, 'E', 'L', 'F'}));
}

}  // namespace
}  // namespace seam::build
