// `output` and `route` declarations: each output gets the alerts its routes select, while the
// command line's output gets everything.
#include <gtest/gtest.h>

#include <sstream>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

size_t alerts_in(const std::string& path, const std::string& rule) {
  std::istringstream in(read_file(path));
  size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && !j.contains("notice") && j.value("rule", "") == rule) ++n;
  }
  return n;
}

TEST(Routes, EachOutputGetsWhatItsRoutesSelect) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string infos = dir.path() + "/infos.jsonl", warns = dir.path() + "/warns.jsonl";
  std::string rules =
      dir.write("routes.seam",
                "use cuda\n"
                "rule every_sync on cuda.stream_sync alert info \"sync {duration}\"\n"
                "rule slow_sync on cuda.stream_sync where duration > 1ms alert warning \"slow\"\n"
                "output infos = json \"" +
                    infos +
                    "\"\n"
                    "output warns = json \"" +
                    warns +
                    "\"\n"
                    "route severity >= warning -> warns\n"
                    "route rule == \"every_sync\" -> infos\n");
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child caller({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "3", "2000"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller.pid())});
  ASSERT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(30)))
      << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(10)));
  EXPECT_TRUE(wait_until([&] { return seam.alerts().size() >= 6; }, std::chrono::seconds(5)));
  EXPECT_EQ(seam.stop(), 0);
  EXPECT_EQ(seam.alerts("every_sync").size(), 3u);  // the command line's output: everything
  EXPECT_EQ(seam.alerts("slow_sync").size(), 3u);
  EXPECT_EQ(alerts_in(infos, "every_sync"), 3u);
  EXPECT_EQ(alerts_in(infos, "slow_sync"), 0u);
  EXPECT_EQ(alerts_in(warns, "slow_sync"), 3u);
  EXPECT_EQ(alerts_in(warns, "every_sync"), 0u);
}

}  // namespace
}  // namespace seam::test
