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
  std::string error;
  std::string h =
      kernel_types_header({"trace_event_raw_sched_wakeup", "trace_event_raw_sched_switch"}, &error);
  ASSERT_FALSE(h.empty()) << error;
  EXPECT_NE(h.find("struct trace_event_raw_sched_wakeup_template {"), std::string::npos);
  EXPECT_NE(h.find("#define trace_event_raw_sched_wakeup trace_event_raw_sched_wakeup_template\n"),
            std::string::npos);
  EXPECT_EQ(h.find("#define trace_event_raw_sched_switch "), std::string::npos) << "sched_switch has its own";
}

TEST(TracepointClass, UnknownTracepointIsReportedByName) {
  if (!std::filesystem::exists(kVmlinuxBtfPath))
    GTEST_SKIP() << kVmlinuxBtfPath << " absent (kernel without BTF)";
  std::string error;
  EXPECT_EQ(kernel_types_header({"trace_event_raw_no_such_event_here"}, &error), "");
  EXPECT_NE(error.find("tracepoint 'no_such_event_here'"), std::string::npos) << error;
}

}  // namespace
}  // namespace seam::build
