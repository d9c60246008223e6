// The record header is described twice by necessity, once per language: struct
// seam_record_header in bpf-templates/seam_record.h (what BPF programs write) and the table in
// compiler/plan/record_header.hpp (what the decoder and the session read). clang compiles the
// table's checks against the struct, so the two cannot drift apart.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "compiler/build/build_object.hpp"
#include "compiler/build/kernel_types.hpp"
#include "compiler/plan/record_header.hpp"

namespace seam::build {
namespace {

#define SKIP_WITHOUT_TOOLS()                                                                     \
  do {                                                                                           \
    if (find_clang().empty()) GTEST_SKIP() << "no clang on PATH (clang, clang-14..16)";          \
    if (!std::filesystem::exists(kVmlinuxBtfPath)) GTEST_SKIP() << kVmlinuxBtfPath << " absent"; \
  } while (0)

BuildResult build_checks(const std::string& checks) {
  BuildOptions options;
  options.use_cache = false;
  return build_object("#include \"seam_prelude.h\"\nchar LICENSE[] SEC(\"license\") = \"GPL\";\n" + checks,
                      options);
}

TEST(RecordHeader, TheBpfStructHasTheLayoutOfThePlansTable) {
  SKIP_WITHOUT_TOOLS();
  std::string checks = plan::record_header_c_checks();
  for (const plan::HeaderField& f : plan::record_header::kFields)
    EXPECT_NE(checks.find("seam_record_header, " + std::string(f.name) + ")"), std::string::npos) << f.name;
  BuildResult r = build_checks(checks);
  EXPECT_TRUE(r.object) << r.object.error() << "\n" << r.clang_stderr;
}

TEST(RecordHeader, ATableThatDisagreesWithTheStructFailsToCompile) {
  SKIP_WITHOUT_TOOLS();
  std::string checks = plan::record_header_c_checks();
  const std::string pid_offset = "seam_record_header, pid) == 16,";
  size_t at = checks.find(pid_offset);
  ASSERT_NE(at, std::string::npos) << checks;
  checks.replace(at, pid_offset.size(), "seam_record_header, pid) == 20,");
  BuildResult r = build_checks(checks);
  ASSERT_FALSE(r.object);
  EXPECT_NE(
      r.clang_stderr.find("seam_record_header: pid's offset differs from compiler/plan/record_header.hpp"),
      std::string::npos)
      << r.clang_stderr;
}

TEST(RecordHeader, TheTableCoversTheHeaderWithoutGapsOrOverlaps) {
  uint32_t next = 0;
  for (const plan::HeaderField& f : plan::record_header::kFields) {
    EXPECT_EQ(f.offset, next) << f.name;
    EXPECT_EQ(f.offset % (f.size < 8 ? f.size : 8), 0u) << f.name << " is not naturally aligned";
    next = f.end();
  }
  EXPECT_EQ(next, plan::kRecordHeaderSize);
}

}  // namespace
}  // namespace seam::build
