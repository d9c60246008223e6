// seam's prebuilt functions (compiler/codegen/prebuilt_bpf.hpp) come built with seam
// (cli/prebuild/): a rule build that calls one links it, one that does not links nothing, the
// clangs started ahead get the same flags, and the kernel loads the program whether the function
// is linked or compiled inline.
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "cli/compile_driver.hpp"
#include "cli/compile_rules.hpp"
#include "compiler/build/build_object.hpp"
#include "compiler/codegen/prebuilt_bpf.hpp"
#include "runtime/run/prebuilt_objects.hpp"
#include "support/test_support.hpp"

namespace seam::cli {
namespace {

const char* kCallsNone = "use cuda\nrule r on cuda.stream_sync where duration > 10ms alert \"x\"\n";

// Each function, by the rule that calls it, the function's name in the object, and a rule that
// does not call it (null where every program does: each has the exec notice, which emits).
struct Case {
  const char* prebuilt;
  const char* function;
  const char* rule;
  const char* calls_none;
};
const Case kCases[] = {
    {codegen::kPyWalk, "seam_py_walk_frames",
     "use cuda, python\nrule r on cuda.stream_sync where duration > 10ms alert \"x\" with pystack\n",
     kCallsNone},
    {codegen::kStackCopy, "seam_stack_copy",
     "use cuda\nrule r on cuda.stream_sync where duration > 10ms alert \"x\" with ustack\n", kCallsNone},
    {codegen::kRecord, "seam_reserve", kCallsNone, nullptr},
    {codegen::kPyGil, "seam_py_gil_held_at",
     "use cuda, python\ncudaStreamSynchronize > 10ms while gil_held -> alert \"x\"\n", kCallsNone},
};

// The object defines the function as one of its own (BTF FUNC): linked, not inline.
bool has_function(const std::vector<uint8_t>& object, const char* name) {
  bpf_object* obj = bpf_object__open_mem(object.data(), object.size(), nullptr);
  if (!obj) return false;
  bool found = btf__find_by_name_kind(bpf_object__btf(obj), name, BTF_KIND_FUNC) > 0;
  bpf_object__close(obj);
  return found;
}

// The kernel loads every program of the object (the verifier passes the function, either way).
bool loads(const std::vector<uint8_t>& object) {
  bpf_object* obj = bpf_object__open_mem(object.data(), object.size(), nullptr);
  if (!obj) return false;
  const bool ok = bpf_object__load(obj) == 0;
  bpf_object__close(obj);
  return ok;
}

// Built as `seam run` builds it, or (inline) with none of seam's prebuilt objects.
std::vector<uint8_t> built(const std::string& rule_text, bool inline_functions = false) {
  test::TempDir dir;
  CompileOptions options;
  options.paths = {dir.write("r.seam", rule_text)};
  std::ostringstream err;
  CompiledRules rules = compile_rules(options, err);
  EXPECT_TRUE(rules.ok) << err.str();
  if (!rules.ok) return {};
  build::BuildResult result;
  if (inline_functions) {
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

// CI's build machine has clang and kernel BTF: there, every function must come prebuilt.
bool came_built(const codegen::PrebuiltBpf& p) {
  if (!runtime::prebuilt_bpf_object(p.name).empty()) return true;
  if (test::in_ci()) ADD_FAILURE() << p.name << ": CI's build machine must have built it";
  return false;
}

TEST(PrebuiltBpf, EachCameWithSeamAndIsLinkedOnlyIntoProgramsThatCallIt) {
  if (build::find_clang().empty()) GTEST_SKIP() << "no clang on PATH (clang, clang-14..16)";
  const std::vector<std::string> flags = rule_build_options().extra_flags;
  for (const Case& c : kCases) {
    const codegen::PrebuiltBpf* p = codegen::find_prebuilt_bpf(c.prebuilt);
    ASSERT_NE(p, nullptr) << c.prebuilt;
    if (!came_built(*p)) continue;  // this build machine could not build it: compiled inline
    EXPECT_NE(std::find(flags.begin(), flags.end(), p->linked_flag), flags.end()) << p->linked_flag;
    std::vector<uint8_t> with = built(c.rule);
    ASSERT_FALSE(with.empty()) << c.prebuilt;
    EXPECT_TRUE(has_function(with, c.function)) << c.prebuilt;
    if (!c.calls_none) continue;
    std::vector<uint8_t> none = built(c.calls_none);
    ASSERT_FALSE(none.empty()) << c.prebuilt;
    EXPECT_FALSE(has_function(none, c.function)) << c.prebuilt;
  }
}

TEST(PrebuiltBpf, TheProgramLoadsWithEachFunctionLinkedOrInline) {
  SEAM_REQUIRE_ROOT();
  if (build::find_clang().empty()) GTEST_SKIP() << "no clang on PATH (clang, clang-14..16)";
  for (const Case& c : kCases) {
    std::vector<uint8_t> inline_functions = built(c.rule, /*inline_functions=*/true);
    ASSERT_FALSE(inline_functions.empty()) << c.prebuilt;
    EXPECT_FALSE(has_function(inline_functions, c.function)) << c.prebuilt;
    EXPECT_TRUE(loads(inline_functions)) << c.prebuilt << ", inline";
    if (!came_built(*codegen::find_prebuilt_bpf(c.prebuilt))) continue;
    std::vector<uint8_t> linked = built(c.rule);
    ASSERT_FALSE(linked.empty()) << c.prebuilt;
    EXPECT_TRUE(has_function(linked, c.function)) << c.prebuilt;
    EXPECT_TRUE(loads(linked)) << c.prebuilt << ", linked";
  }
}

}  // namespace
}  // namespace seam::cli
