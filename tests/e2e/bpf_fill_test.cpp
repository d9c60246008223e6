// seam's own BPF fill on /metrics: the ring buffer's fill ratio, and the entries of a state map
// (set by the process that called, never cleared) against its capacity.
#include <gtest/gtest.h>

#include <regex>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

TEST(BpfFill, RingbufFillAndStateMapEntriesAreServed) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.write("fill.seam",
                                "use cuda\n"
                                "state synced per process\n"
                                "    set on cuda.stream_sync\n"
                                "rule again on cuda.stream_sync while synced alert info \"again\"\n");
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  std::string fixtures = SEAM_FIXTURE_DIR;
  Child caller({fixtures + "/cuda_caller", fixtures + "/libcudart.so.12", "3", "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(caller.pid()), "--listen", listen});
  ASSERT_TRUE(seam.wait_for_notice("listening", listen, std::chrono::seconds(30))) << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(10)));
  // One process set the state: its map (an LRU hash: per-thread states live in task storage,
  // which is not counted) holds exactly one entry.
  // The file's one map (named by compiler/lower/map_names.hpp: kind, name, hash).
  std::regex entries(R"re(\nseam_map_entries\{map="(fill/[^"]+)"\} 1\n)re");
  std::string body;
  std::smatch m;
  EXPECT_TRUE(wait_until(
      [&] {
        body = http_get("http://" + listen + "/metrics");
        return std::regex_search(body, m, entries);
      },
      std::chrono::seconds(5)))
      << body;
  std::string map = m.size() > 1 ? m[1].str() : "?";
  std::regex capacity("\nseam_map_max_entries\\{map=\"" + map + "\"\\} [1-9][0-9]*\n");
  EXPECT_TRUE(std::regex_search(body, capacity)) << body;
  std::smatch fill;
  ASSERT_TRUE(std::regex_search(body, fill, std::regex(R"re(\nseam_ringbuf_fill_ratio ([0-9.e+-]+)\n)re")))
      << body;
  double ratio = std::stod(fill[1].str());
  EXPECT_GE(ratio, 0.0);
  EXPECT_LE(ratio, 1.0);
  EXPECT_EQ(seam.alerts("again").size(), 2u);  // the 2nd and 3rd calls found the state set
  EXPECT_EQ(seam.stop(), 0);
}

}  // namespace
}  // namespace seam::test
