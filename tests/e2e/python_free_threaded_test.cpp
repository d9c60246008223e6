// A free-threaded CPython (3.13t) is not read: there is no 3.13t build here, so the caller maps
// a library that looks like one (tests/fixtures/fake_libpython.c, named libpython3.13t.so.1.0,
// its debug offsets saying free_threaded and its symbols those of a Py_GIL_DISABLED build)
// beside the CUDA fixture. seam gives one notice naming the interpreter and its file, and the
// alerts say that they carry no Python frames: none invented from a layout seam does not know.
#include <gtest/gtest.h>

#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

TEST(PythonFreeThreaded, GetsANoticeNamingItAndNoFrames) {
  SEAM_REQUIRE_ROOT();
  TempDir dir;
  const std::string fixtures = SEAM_FIXTURE_DIR;
  const std::string libpython = fixtures + "/ft/libpython3.13t.so.1.0";
  Child caller({"/usr/bin/env", "LD_PRELOAD=" + libpython, fixtures + "/cuda_caller",
                fixtures + "/libcudart.so.12", "3", "0"});
  ASSERT_TRUE(caller.wait_for_line("ready", std::chrono::seconds(10)));
  const pid_t pid = caller.pid();  // wait() forgets it
  std::string rules = dir.write("ft.seam",
                                "use cuda, python\n"
                                "rule sync on cuda.stream_sync\n"
                                "    alert info \"sync\" with pystack\n");
  SeamRun seam(dir.path(), {rules, "--pid", std::to_string(pid)});
  ASSERT_TRUE(seam.wait_for_notice("interpreter-unsupported", "libpython3.13t.so", std::chrono::seconds(30)))
      << seam.stderr_text();
  caller.send_line("go");
  ASSERT_TRUE(caller.wait_for_line("done", std::chrono::seconds(20)));
  EXPECT_EQ(caller.wait(), 0);
  wait_until([&] { return seam.alerts("sync").size() >= 3; }, std::chrono::seconds(10));
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::vector<nlohmann::json> notices = seam.notices("interpreter-unsupported");
  ASSERT_EQ(notices.size(), 1u) << seam.stderr_text();
  EXPECT_EQ(notices[0].value("message", ""),
            "pystack (" + rules + ":2): pid " + std::to_string(pid) + " runs CPython 3.13t (" + libpython +
                "), which seam cannot read: it is a free-threaded build (its name carries the free-threaded "
                "ABI suffix 't'), whose frames and thread states seam does not read, and which has no GIL to "
                "hold: no Python frames are shown for it");
  std::vector<nlohmann::json> alerts = seam.alerts("sync");
  ASSERT_EQ(alerts.size(), 3u) << seam.stderr_text();
  for (const nlohmann::json& alert : alerts)
    EXPECT_EQ(alert["pystack"],
              nlohmann::json::parse(R"([{"kind":"truncated","reason":)"
                                    R"("no Python frames: the process runs no interpreter seam reads"}])"))
        << alert.dump();
}

}  // namespace
}  // namespace seam::test
