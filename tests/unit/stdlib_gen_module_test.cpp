// `seam stdlib gen` on the fixture header: the exact module text (users read it, so it is pinned
// whole), the enum sidecar, and that the text passes the checker and rules can use its fields.
#include <gtest/gtest.h>

#include "tests/unit/stdlib_gen_support.hpp"

namespace seam::test {
namespace {

TEST(StdlibGenModule, FixtureHeaderGivesTheExpectedModule) {
  stdlib_gen::GenResult result = gen(fixture_header(), {"fake*"});
  ASSERT_EQ(result.status, stdlib_gen::GenStatus::Ok);
  EXPECT_EQ(result.module_text,
            read_file(std::string(SEAM_SOURCE_DIR) + "/tests/fixtures/gen/fake_runtime.seam.expected"));
}

TEST(StdlibGenModule, FixtureModulePassesTheChecker) {
  stdlib_gen::GenResult result = gen(fixture_header(), {"fake*"});
  ASSERT_EQ(result.status, stdlib_gen::GenStatus::Ok);
  EXPECT_EQ(check_output(result.module_text), "");
  // The fields are usable with their types and units: count is bytes, kind an integer.
  EXPECT_EQ(check_output(result.module_text,
                         "use fake_runtime\n"
                         "rule big_copy on fake_runtime.memcpy_async where count > 1MiB and kind == 1\n"
                         "    alert warning \"copy of {count}\"\n"
                         "rule wide_launch on fake_runtime.launch where grid_z > 1 alert \"z\"\n"),
            "");
  // ...and a unit mismatch against them is still reported, so the check above can fail.
  EXPECT_NE(
      check_output(result.module_text,
                   "use fake_runtime\nrule r on fake_runtime.memcpy_async where count > 1ms alert \"x\"\n"),
      "");
}

TEST(StdlibGenModule, EnumsSidecarMapsValuesToNames) {
  stdlib_gen::GenResult result = gen(fixture_header(), {"fakeMemcpyAsync", "fakeSetDeviceFlags"});
  ASSERT_EQ(result.status, stdlib_gen::GenStatus::Ok);
  EXPECT_EQ(result.enums, nlohmann::json::parse(R"({
    "fakeError": {"0": "fakeSuccess", "1": "fakeErrorInvalidValue", "2": "fakeErrorMemoryAllocation",
                  "999": "fakeErrorUnknown"},
    "fakeCopyKind": {"0": "fakeCopyHostToHost", "1": "fakeCopyHostToDevice", "2": "fakeCopyDeviceToHost",
                     "4": "fakeCopyDefault"},
    "fakePriority_t": {"0": "fakeLow", "1": "fakeHigh"}})"));
}

TEST(StdlibGenModule, OnlyMatchingFunctionsAndAGivenPrefixAndModuleName) {
  stdlib_gen::GenOptions options;
  options.header = fixture_header();
  options.library_alias = "rt";
  options.library_pattern = "librt.so*";
  options.function_globs = {"fakeMalloc", "fakeShut*"};
  options.module_name = "rt_api";
  options.strip_prefix = "";
  stdlib_gen::GenResult result = stdlib_gen::generate(options);
  ASSERT_EQ(result.status, stdlib_gen::GenStatus::Ok);
  EXPECT_NE(result.module_text.find("module rt_api\n"), std::string::npos);
  EXPECT_NE(result.module_text.find("span fake_malloc = rt:fakeMalloc\n"), std::string::npos)
      << result.module_text;
  EXPECT_NE(result.module_text.find("span fake_shutdown = rt:fakeShutdown\n"), std::string::npos);
  EXPECT_EQ(result.module_text.find("fakeMemcpyAsync"), std::string::npos);
  EXPECT_EQ(result.module_text.find("otherFunction"), std::string::npos);
  EXPECT_EQ(check_output(result.module_text), "");
}

TEST(StdlibGenModule, VariantsDeclaredUnderADefineBecomeAlternatives) {
  stdlib_gen::GenOptions options;
  options.header = fixture_header();
  options.library_alias = "rt";
  options.library_pattern = "librt.so*";
  options.function_globs = {"fakeMalloc", "fakeMemcpyAsync"};
  options.variant_defines = {"FAKE_PER_THREAD"};
  stdlib_gen::GenResult result = stdlib_gen::generate(options);
  ASSERT_EQ(result.status, stdlib_gen::GenStatus::Ok);
  EXPECT_NE(result.module_text.find("span memcpy_async = rt:fakeMemcpyAsync | rt:fakeMemcpyAsync_ptsz\n"),
            std::string::npos)
      << result.module_text;
  EXPECT_NE(result.module_text.find("span malloc = rt:fakeMalloc\n"), std::string::npos)
      << result.module_text;
  EXPECT_EQ(check_output(result.module_text), "");
}

TEST(StdlibGenModule, ErrorsInTheHeaderAreReportedWithFileAndLine) {
  TempDir dir;
  std::string header = dir.write("broken.h", "int ok(int a);\nint broken(int a, nosuchtype b);\n");
  stdlib_gen::GenResult result = gen(header, {"*"});
  EXPECT_EQ(result.status, stdlib_gen::GenStatus::HeaderErrors);
  ASSERT_FALSE(result.errors.empty());
  EXPECT_EQ(result.errors[0].rfind(header + ":2:", 0), 0u) << result.errors[0];
  EXPECT_TRUE(result.module_text.empty());
}

TEST(StdlibGenModule, MissingHeaderNoMatchAndBadNames) {
  EXPECT_EQ(gen("/nonexistent/x.h", {"*"}).status, stdlib_gen::GenStatus::BadInput);
  EXPECT_EQ(gen(fixture_header(), {"nothing*"}).status, stdlib_gen::GenStatus::NoMatch);
  Result<stdlib_gen::LibrarySpec> spec = stdlib_gen::parse_library_spec("cudart=libcudart.so*");
  ASSERT_TRUE(spec) << spec.error();
  EXPECT_EQ(spec->alias, "cudart");
  EXPECT_EQ(spec->pattern, "libcudart.so*");
  for (const char* bad : {"cudart", "=lib.so", "cudart=", "span=lib.so", "my-lib=lib.so"}) {
    Result<stdlib_gen::LibrarySpec> refused = stdlib_gen::parse_library_spec(bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.code(), ErrorCode::InvalidInput) << bad;
  }
  EXPECT_EQ(stdlib_gen::parse_library_spec("my-lib=lib.so").error(),
            "--library: 'my-lib' is not a seam name (letters, digits, '_'; not a reserved word)");
}

}  // namespace
}  // namespace seam::test
