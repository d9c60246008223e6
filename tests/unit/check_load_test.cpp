// Loading: which files are read, how size and read errors are reported, stdlib modules, and
// that any prefix of a valid file (a partial AST after syntax errors) checks without crashing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "compiler/diag/render.hpp"
#include "support/test_support.hpp"
#include "unit/check_support.hpp"

namespace {

using namespace seam;

// Errors outside the repository's stdlib (whose health StdlibModulesLoadAndRepositoryIsClean tests).
size_t own_errors(const check::Program& p) {
  size_t n = 0;
  for (const diag::Diagnostic& d : p.diagnostics.all())
    if (d.severity == diag::Severity::Error && d.path.rfind(SEAM_SOURCE_DIR "/stdlib/", 0) != 0) ++n;
  return n;
}

check::LoadOptions repo_stdlib() {
  check::LoadOptions o;
  o.stdlib_dirs = {SEAM_SOURCE_DIR "/stdlib"};
  return o;
}

TEST(CheckLoad, StdlibModulesLoadAndRepositoryIsClean) {
  check::Program p = check::load({SEAM_SOURCE_DIR "/rules"}, repo_stdlib());
  check::check(p);
  EXPECT_EQ(diag::render_text(p.diagnostics), "");
  EXPECT_NE(p.find_module("cuda"), nullptr);
  EXPECT_NE(p.find_module("python"), nullptr);
  EXPECT_NE(p.find_module("sched"), nullptr);
  EXPECT_EQ(p.find_module("nope"), nullptr);
  // Every .seam file of rules/ is a rule file (the pack grows; count what is on disk).
  size_t on_disk = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(SEAM_SOURCE_DIR "/rules"))
    on_disk += e.path().extension() == ".seam";
  EXPECT_EQ(p.rule_files.size(), on_disk);
}

TEST(CheckLoad, StdlibGivenAsPathIsReadOnce) {
  check::Program p = check::load({SEAM_SOURCE_DIR "/stdlib", SEAM_SOURCE_DIR "/rules"}, repo_stdlib());
  check::check(p);
  size_t on_disk = 0;
  for (const auto& e : std::filesystem::directory_iterator(SEAM_SOURCE_DIR "/stdlib"))
    on_disk += e.path().extension() == ".seam";
  EXPECT_EQ(p.modules.size(), on_disk);  // each module once, though reached twice
  EXPECT_EQ(p.diagnostics.error_count(), 0u) << diag::render_text(p.diagnostics);
}

TEST(CheckLoad, UserModuleReplacesStdlibModule) {
  test::TempDir dir;
  std::string mod = dir.write("cuda.seam", "module cuda\npoint tick = interval 1s\n");
  std::string rule = dir.write("r.seam", "use cuda\nrule r\n    on cuda.tick\n    alert \"x\"\n");
  check::Program p = check::load({mod, rule}, repo_stdlib());
  check::check(p);
  EXPECT_EQ(own_errors(p), 0u) << diag::render_text(p.diagnostics);
  const ast::File* cuda = p.find_module("cuda");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->source->path(), mod);
}

// The checker tests' harness (check_files) loads its in-memory files as the loader loads files
// on disk: a user module hides the stdlib's module of that name there too.
TEST(CheckLoad, TheTestHarnessClassifiesFilesAsTheLoaderDoes) {
  check::Program p =
      test::check_files({{"lib/cuda.seam", "module cuda\npoint tick = interval 1s\n"},
                         {"rules/r.seam", "use cuda\nrule r\n    on cuda.tick\n    alert \"x\"\n"}});
  EXPECT_EQ(own_errors(p), 0u) << diag::render_text(p.diagnostics);
  const ast::File* cuda = p.find_module("cuda");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->source->path(), "lib/cuda.seam");
  EXPECT_EQ(std::count_if(p.modules.begin(), p.modules.end(),
                          [](const ast::File& f) { return f.module() && f.module()->name.name == "cuda"; }),
            1);
}

TEST(CheckLoad, DirectoriesAreWalkedSorted) {
  test::TempDir dir;
  dir.write("b/z.seam", "use cuda\n");
  dir.write("a.seam", "use cuda\n");
  dir.write("b/c/y.seam", "use cuda\n");
  dir.write("b/skip.txt", "use nothing\n");
  check::Program p = check::load({dir.path()}, repo_stdlib());
  ASSERT_EQ(p.rule_files.size(), 3u);
  EXPECT_EQ(p.rule_files[0].source->path(), dir.path() + "/a.seam");
  EXPECT_EQ(p.rule_files[1].source->path(), dir.path() + "/b/c/y.seam");
  EXPECT_EQ(p.rule_files[2].source->path(), dir.path() + "/b/z.seam");
}

TEST(CheckLoad, SizeIsCheckedBeforeReading) {
  test::TempDir dir;
  std::string path = dir.write("big.seam", std::string(200, '#'));
  check::LoadOptions o;
  o.limits.max_file_bytes = 100;
  check::Program p = check::load({path}, o);
  EXPECT_EQ(diag::render_text(p.diagnostics),
            path + ": error[E0002]: file is 200 bytes, over the limit of 100 bytes\n\n1 error, 0 warnings\n");
  EXPECT_TRUE(p.rule_files.empty());
}

TEST(CheckLoad, UnreadableInputsAreDiagnosticsWithTheReason) {
  test::TempDir dir;
  std::string missing = dir.path() + "/missing.seam";
  std::string fifo = dir.path() + "/fifo.seam";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  check::Program p = check::load({missing, fifo}, {});
  EXPECT_EQ(diag::render_text(p.diagnostics),
            missing + ": error[E0004]: cannot read: No such file or directory\n\n" + fifo +
                ": error[E0004]: cannot read: not a regular file\n\n2 errors, 0 warnings\n");
  if (!test::is_root()) {
    std::string locked = dir.write("locked.seam", "use cuda\n");
    ::chmod(locked.c_str(), 0);
    check::Program q = check::load({locked}, {});
    EXPECT_EQ(diag::render_text(q.diagnostics),
              locked + ": error[E0004]: cannot read: Permission denied\n\n1 error, 0 warnings\n");
  }
}

TEST(CheckLoad, DefaultStdlibHonoursEnvironment) {
  ::setenv("SEAM_STDLIB", "/somewhere/stdlib", 1);
  EXPECT_EQ(check::default_stdlib_dirs(), std::vector<std::string>{"/somewhere/stdlib"});
  ::unsetenv("SEAM_STDLIB");
  std::vector<std::string> dirs = check::default_stdlib_dirs();
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(dirs[0] + "/cuda.seam")) << dirs[0];
}

// Every prefix of a rich file is a partial AST after syntax errors: none may crash the checker.
TEST(CheckLoad, EveryPrefixOfAFileChecksWithoutCrashing) {
  const std::string text =
      "use cuda, python\n"
      "point tick = interval 1s (n: u32)\n"
      "state s per thread set on cuda.malloc clear on cuda.free\n"
      "rule a on cuda.stream_sync where duration > 10ms and not (comm == \"x\") while python.gil_held and s\n"
      "    after cuda.malloc within 5ms alert error \"{duration} {cuda.malloc.size}\" with ustack limit 1 "
      "per 1s\n"
      "metric m on cuda.malloc where size > 1KiB sum size by comm\n"
      "rule b when p99(m) over 1m > 1MiB alert \"{value}\"\n"
      "output o = webhook \"https://h/x\" format json\n"
      "route severity >= error and not (severity == critical) -> o\n"
      "cudaMalloc > 1ms -> alert info with ustack limit 1 per 1s\n";
  for (size_t n = 0; n <= text.size(); ++n) {
    check::Program p = test::check_files({{"rules/a.seam", text.substr(0, n)}});
    (void)diag::render_text(p.diagnostics);
  }
  EXPECT_EQ(test::lint_text(text), "");
}

}  // namespace
