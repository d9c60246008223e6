// `--ringbuf-size` sizes the one ring every unit shares, also when a run starts with no rule units
// yet (an empty rules directory that files are added to later).
#include <gtest/gtest.h>

#include "support/e2e_helpers.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

TEST(RingbufSize, HonouredWhenARunStartsWithNoUnits) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  std::string rules = dir.path() + "/rules";
  dir.write("rules/README", "no rule files yet\n");
  std::string listen = "127.0.0.1:" + std::to_string(free_port());
  SeamRun seam(dir.path(), {rules, "--ringbuf-size", "64", "--listen", listen});
  ASSERT_TRUE(seam.wait_for_notice("listening", listen, std::chrono::seconds(30))) << seam.stderr_text();
  std::string body;
  EXPECT_TRUE(wait_until(
      [&] {
        body = http_get("http://" + listen + "/metrics");
        return body.find("seam_ringbuf_size_bytes ") != std::string::npos;
      },
      std::chrono::seconds(10)))
      << seam.stderr_text();
  EXPECT_NE(body.find("\nseam_ringbuf_size_bytes 65536\n"), std::string::npos) << body;
}

}  // namespace
}  // namespace seam::test
