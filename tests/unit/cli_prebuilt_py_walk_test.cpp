// Python's frame walk comes built with seam (cli/prebuild/): a rule build that takes a pystack
// links it, one that does not links nothing, and the clangs started ahead get the same flags.
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "cli/compile_driver.hpp"
#include "cli/compile_rules.hpp"
#include "compiler/build/build_object.hpp"
#include "compiler/codegen/py_walk_source.hpp"
#include "runtime/run/prebuilt_py_walk.hpp"
#include "support/test_support.hpp"

namespace seam::cli {
namespace {

const char* kPystackRule =
    "use cuda, python\nrule r on cuda.stream_sync where duration > 10ms alert \"x\" with pystack\n";

// The kernel loads every program of the object (the verifier passes the walk, linked or inline).
bool loads(const std::vector<uint8_t>& object) {
  bpf_object* obj = bpf_object__open_mem(object.data(), object.size(), nullptr);
  if (!obj) return false;
  const bool ok = bpf_object__load(obj) == 0;
  bpf_object__close(obj);
  return ok;
}

// The object defines the walk as a function of its own (BTF FUNC): linked, not inline.
bool has_walk_function(const std::vector<uint8_t>& object) {
  bpf_object* obj = bpf_object__open_mem(object.data(), object.size(), nullptr);
  if (!obj) return false;
  bool found = btf__find_by_name_kind(bpf_object__btf(obj), "seam_py_walk_frames", BTF_KIND_FUNC) > 0;
  bpf_object__close(obj);
  return found;
}

// Built as `seam run` builds it, or (inline) with none of seam's prebuilt objects.
std::vector<uint8_t> built(const std::string& rule_text, bool inline_walk = false) {
  test::TempDir dir;
  CompileOptions options;
  options.paths = {dir.write("r.seam", rule_text)};
  std::ostringstream err;
  CompiledRules rules = compile_rules(options, err);
  EXPECT_TRUE(rules.ok) << err.str();
  if (!rules.ok) return {};
  build::BuildResult result;
  if (inline_walk) {
    build::BuildOptions plain;
    plain.cache_dir = dir.path() + "/cache";
    plain.kernel_types = rules.lowered.kernel_types;
    result = build::build_object(rules.generated.c_source, plain);
    EXPECT_TRUE(result.object.ok()) << result.object.error() << "\n" << result.clang_stderr;
  } else {
    setenv("SEAM_CACHE_DIR", (dir.path() + "/cache").c_str(), 1);
    result = build_rules(rules, err);
    unsetenv("SEAM_CACHE_DIR");
    EXPECT_TRUE(result.object.ok()) << err.str();
  }
  return result.object.ok() ? *result.object : std::vector<uint8_t>{};
}

TEST(PrebuiltPyWalk, CameWithSeamAndIsLinkedOnlyIntoProgramsThatTakeAPystack) {
  if (runtime::prebuilt_py_walk().empty()) {
    if (test::in_ci()) FAIL() << "CI's build machine has clang and kernel BTF: the walk must come prebuilt";
    GTEST_SKIP() << "this build machine could not build the walk: programs compile it inline";
  }
  if (build::find_clang().empty()) GTEST_SKIP() << "no clang on PATH (clang, clang-14..16)";
  const std::vector<std::string> flags = rule_build_options().extra_flags;
  EXPECT_NE(std::find(flags.begin(), flags.end(), codegen::kPyWalkLinkedFlag), flags.end());

  std::vector<uint8_t> with =
      built("use cuda, python\nrule r on cuda.stream_sync where duration > 10ms alert \"x\" with pystack\n");
  ASSERT_FALSE(with.empty());
  EXPECT_TRUE(has_walk_function(with));
  std::vector<uint8_t> without =
      built("use cuda\nrule r on cuda.stream_sync where duration > 10ms alert \"x\"\n");
  ASSERT_FALSE(without.empty());
  EXPECT_FALSE(has_walk_function(without));
}

// Linked (seam's build made the walk) or inline (it could not), the kernel loads the program.
TEST(PrebuiltPyWalk, TheProgramLoadsWithTheWalkLinkedOrInline) {
  SEAM_REQUIRE_ROOT();
  if (build::find_clang().empty()) GTEST_SKIP() << "no clang on PATH (clang, clang-14..16)";
  std::vector<uint8_t> inline_walk = built(kPystackRule, /*inline_walk=*/true);
  ASSERT_FALSE(inline_walk.empty());
  EXPECT_FALSE(has_walk_function(inline_walk));
  EXPECT_TRUE(loads(inline_walk));
  if (runtime::prebuilt_py_walk().empty()) {
    if (test::in_ci()) FAIL() << "CI's build machine has clang and kernel BTF: the walk must come prebuilt";
    GTEST_SKIP() << "this build machine could not build the walk: only the inline walk is loaded";
  }
  std::vector<uint8_t> linked = built(kPystackRule);
  ASSERT_FALSE(linked.empty());
  EXPECT_TRUE(has_walk_function(linked));
  EXPECT_TRUE(loads(linked));
}

}  // namespace
}  // namespace seam::cli
