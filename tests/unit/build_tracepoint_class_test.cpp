// Tracepoints of an event class: the class's struct found from the event's tracefs format.
#include <gtest/gtest.h>

#include <filesystem>

#include "compiler/build/kernel_types.hpp"
#include "compiler/build/tracepoint_class.hpp"

namespace seam::build {
namespace {

TEST(TracepointClass, FormatFieldsLeaveOutTheCommonOnesAndKeepArrayNames) {
  std::vector<TracepointField> f = parse_tracepoint_format(
      "name: sys_enter\nID: 443\nformat:\n"
      "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
      "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
      "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n"
      "\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n"
      "\tfield:__data_loc char[] name;\toffset:64;\tsize:4;\tsigned:0;\n\n"
      "print fmt: \"NR %ld\", REC->id\n");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].name, "id");
  EXPECT_EQ(f[0].offset, 8u);
  EXPECT_EQ(f[1].name, "args");
  EXPECT_EQ(f[1].offset, 16u);
  EXPECT_EQ(f[2].name, "__data_loc_name");
  EXPECT_EQ(f[2].offset, 64u);
}

// sched_wakeup has no struct of its own: trace_event_raw_sched_wakeup_template lays it out, and
// the header names it under the event's name.
TEST(TracepointClass, EventOfAClassGetsTheClassStructUnderItsOwnName) {
  if (!std::filesystem::exists(kVmlinuxBtfPath))
    GTEST_SKIP() << kVmlinuxBtfPath << " absent (kernel without BTF)";
  if (tracepoint_format_path("sched_wakeup").empty())
    GTEST_SKIP() << "tracefs is not mounted or not readable here";
  Result<std::string> header =
      kernel_types_header({"trace_event_raw_sched_wakeup", "trace_event_raw_sched_switch"});
  ASSERT_TRUE(header) << header.error();
  const std::string& h = *header;
  EXPECT_NE(h.find("struct trace_event_raw_sched_wakeup_template {"), std::string::npos);
  EXPECT_NE(h.find("#define trace_event_raw_sched_wakeup trace_event_raw_sched_wakeup_template\n"),
            std::string::npos);
  EXPECT_EQ(h.find("#define trace_event_raw_sched_switch "), std::string::npos) << "sched_switch has its own";
}

// A per-syscall event: struct syscall_trace_enter {nr; args[6]} in BTF does not name the
// arguments, so the struct is written from the format file, each field at its offset.
TEST(TracepointClass, SyscallEventStructIsWrittenFromItsFormat) {
  std::vector<TracepointField> f = parse_tracepoint_format(
      "name: sys_enter_futex\nformat:\n"
      "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
      "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
      "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
      "\tfield:u32 * uaddr;\toffset:16;\tsize:8;\tsigned:0;\n"
      "\tfield:int op;\toffset:24;\tsize:8;\tsigned:0;\n"
      "\tfield:long ret;\toffset:32;\tsize:8;\tsigned:1;\n"
      "\tfield:unsigned long args[2];\toffset:40;\tsize:16;\tsigned:0;\n");
  EXPECT_EQ(tracepoint_struct_from_fields("sys_enter_futex", f),
            "struct trace_event_raw_sys_enter_futex {\n"
            "\tunsigned char __pad_0[8];\n"
            "\tint __syscall_nr;\n"
            "\tunsigned char __pad_12[4];\n"
            "\tunsigned long long uaddr;\n"
            "\tunsigned long long op;\n"
            "\tlong long ret;\n"
            "\tunsigned long long args[2];\n"
            "};\n");
}

// In the header, that struct comes after preserve_access_index is popped: it is not the kernel's,
// so a CO-RE relocation against it would find no target.
TEST(TracepointClass, SyscallEventStructIsOutsideCoRe) {
  if (!std::filesystem::exists(kVmlinuxBtfPath))
    GTEST_SKIP() << kVmlinuxBtfPath << " absent (kernel without BTF)";
  if (tracepoint_format_path("sys_enter_futex").empty())
    GTEST_SKIP() << "tracefs is not mounted or not readable here";
  Result<std::string> header =
      kernel_types_header({"trace_event_raw_sys_enter_futex", "trace_event_raw_sys_exit_futex"});
  ASSERT_TRUE(header) << header.error();
  const std::string& h = *header;
  size_t pop = h.find("#pragma clang attribute pop");
  size_t enter = h.find("struct trace_event_raw_sys_enter_futex {");
  ASSERT_NE(enter, std::string::npos) << h.substr(h.size() > 2000 ? h.size() - 2000 : 0);
  EXPECT_GT(enter, pop);
  EXPECT_NE(h.find("\tunsigned long long uaddr;\n", enter), std::string::npos);
  EXPECT_NE(h.find("\tlong long ret;\n", h.find("struct trace_event_raw_sys_exit_futex {")),
            std::string::npos);
}

TEST(TracepointClass, UnknownTracepointIsReportedByName) {
  if (!std::filesystem::exists(kVmlinuxBtfPath))
    GTEST_SKIP() << kVmlinuxBtfPath << " absent (kernel without BTF)";
  Result<std::string> header = kernel_types_header({"trace_event_raw_no_such_event_here"});
  ASSERT_FALSE(header);
  EXPECT_NE(header.error().find("tracepoint 'no_such_event_here'"), std::string::npos) << header.error();
  EXPECT_EQ(header.code(), ErrorCode::NotFound);
}

}  // namespace
}  // namespace seam::build
