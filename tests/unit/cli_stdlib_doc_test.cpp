// `seam stdlib doc`: docs/stdlib.md is generated from the stdlib modules, and the checked-in
// file must match what the current modules produce.
#include <gtest/gtest.h>

#include "cli/stdlib_doc.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

TEST(StdlibDoc, CheckedInDocsMatchTheModules) {
  Result<std::string> doc = cli::stdlib_markdown_from({std::string(SEAM_SOURCE_DIR) + "/stdlib"});
  ASSERT_TRUE(doc) << doc.error();
  const std::string& text = *doc;
  EXPECT_EQ(read_file(std::string(SEAM_SOURCE_DIR) + "/docs/stdlib.md"), text)
      << "docs/stdlib.md is stale: run `seam stdlib doc > docs/stdlib.md`";
}

TEST(StdlibDoc, ListsEveryEventWithProbesFieldsUnitsAndDocs) {
  TempDir dir;
  dir.write("m.seam",
            "# What m is for.\n"
            "module m\n"
            "# The library.\n"
            "library lib = \"libm.so*\" | exe \"mprog\"\n"
            "# Copies memory.\n"
            "span copy = lib:copy | lib:copy_ptds\n"
            "    (dst: ptr,      # where to\n"
            "     count: bytes)  # how much\n"
            "    -> (ret: i32)   # 0 or an error\n"
            "point tick = tracepoint sched:sched_switch (prev_pid: i32)\n"
            "span wait = tracepoint a:begin key id .. tracepoint a:end key id (id: u64)\n"
            "alias Copy = copy\n"
            "# Inside a copy.\n"
            "state copying per thread\n"
            "    set on entry of copy\n"
            "    clear on return of copy\n");
  Result<std::string> doc = cli::stdlib_markdown_from({dir.path()});
  ASSERT_TRUE(doc) << doc.error();
  const std::string& text = *doc;
  for (const char* expected :
       {"## m\n\nWhat m is for.\n", "Library `lib`: `libm.so*` or the executable `mprog`. The library.\n",
        "### m.copy (span)\n\nCopies memory.\n\nProbes: `lib:copy` or `lib:copy_ptds`\n",
        "Aliases: `m.Copy`\n", "| `dst` | ptr |  | where to |\n", "| `count` | bytes | bytes | how much |\n",
        "| `ret` | i32 |  | result: 0 or an error |\n", "| `duration` | duration | ns | end minus begin |\n",
        "### m.tick (point)\n", "Probes: `tracepoint sched:sched_switch`\n",
        "Probes: `tracepoint a:begin` key `id` .. `tracepoint a:end` key `id`\n",
        "### m.copying (state per thread)\n\nInside a copy.\n\n- set on entry of lib:copy\n- clear on return "
        "of lib:copy\n"})
    EXPECT_NE(text.find(expected), std::string::npos) << "missing: " << expected << "\nin:\n" << text;
  // A point has no duration row.
  size_t tick = text.find("### m.tick");
  EXPECT_EQ(text.find("| `duration`", tick), text.find("| `duration`", text.find("### m.wait")));
}

TEST(StdlibDoc, AModuleWithErrorsIsReported) {
  TempDir dir;
  dir.write("m.seam", "module m\nspan x = nolib:f (a: nosuchtype)\n");
  Result<std::string> doc = cli::stdlib_markdown_from({dir.path()});
  ASSERT_FALSE(doc);
  EXPECT_NE(doc.error().find("error["), std::string::npos) << doc.error();
}

}  // namespace
}  // namespace seam::test
