// helper_defs: a build writes only the helper declarations its program and headers name, and the
// program still builds; anything the filter does not recognize stays whole.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/build/build_object.hpp"
#include "compiler/build/embedded.hpp"
#include "compiler/build/helper_defs.hpp"
#include "support/test_support.hpp"

namespace seam::build {
namespace {

const char* kDefs = R"(/* This is auto-generated file. See bpf_doc.py for details. */

/* Forward declarations of BPF structs */
struct pt_regs;

/*
 * bpf_map_lookup_elem
 *
 * 	Perform a lookup in *map*.
 */
static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *) 1;

/*
 * bpf_ktime_get_ns
 */
static __u64 (*bpf_ktime_get_ns)(void) = (void *) 5;

/*
 * bpf_get_smp_processor_id
 */
static __u32 (*bpf_get_smp_processor_id)(void) = (void *) 8;
)";

std::string filtered(std::vector<std::string_view> uses) {
  return helper_defs_used_by(kDefs, uses);
}

TEST(HelperDefs, KeepsTheForwardDeclarationsAndOnlyTheHelpersSomeTextNames) {
  EXPECT_EQ(filtered({"x = bpf_ktime_get_ns();", "/* bpf_map_lookup_elem in a comment counts too */"}),
            "\nstruct pt_regs;\n\n"
            "static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *) 1;\n\n"
            "static __u64 (*bpf_ktime_get_ns)(void) = (void *) 5;\n\n");
}

TEST(HelperDefs, ANameInsideALongerIdentifierIsNotAUse) {
  std::string out = filtered({"my_bpf_ktime_get_ns(); bpf_ktime_get_ns_x();"});
  EXPECT_EQ(out.find("(*bpf_ktime_get_ns)"), std::string::npos) << out;
}

TEST(HelperDefs, ALineOfAnotherShapeKeepsTheWholeFile) {
  std::string odd = std::string(kDefs) + "static long (*bpf_two_lines)(void *a,\n\tvoid *b) = (void *) 9;\n";
  std::vector<std::string_view> uses = {"bpf_ktime_get_ns"};
  EXPECT_EQ(helper_defs_used_by(odd, uses), odd);
  std::vector<std::string_view> none;
  EXPECT_EQ(helper_defs_used_by("int x;\n", none), "int x;\n");
}

TEST(HelperDefs, TheEmbeddedLibbpfDefsAreCutToWhatAProgramNames) {
  std::string_view defs = *embedded::find("bpf_helper_defs.h");
  std::vector<std::string_view> uses = {"bpf_get_smp_processor_id()"};
  std::string out = helper_defs_used_by(defs, uses);
  EXPECT_LT(out.size(), defs.size() / 20) << "this libbpf's helper defs were not recognized";
  EXPECT_NE(out.find("(*bpf_get_smp_processor_id)"), std::string::npos);
  EXPECT_EQ(out.find("(*bpf_map_lookup_elem)"), std::string::npos);
}

// A program calling a helper that none of seam's headers uses builds: its own C is scanned.
TEST(HelperDefs, AProgramBuildsWithAHelperOnlyItNames) {
  if (find_clang().empty()) GTEST_SKIP() << "no clang on PATH (clang, clang-14..16)";
  test::TempDir dir;
  BuildOptions options;
  options.cache_dir = dir.path() + "/cache";
  options.kernel_types = {"pt_regs"};
  BuildResult r = build_object(R"(#include "seam_prelude.h"
char LICENSE[] SEC("license") = "GPL";
SEC("uprobe")
int on_call(struct pt_regs *ctx) { return bpf_get_numa_node_id() + (int)bpf_jiffies64(); }
)",
                               options);
  EXPECT_TRUE(r.object.ok()) << r.object.error() << "\n" << r.clang_stderr;
}

}  // namespace
}  // namespace seam::build
