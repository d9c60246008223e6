// The batch writer under the sinks: batches until flushed or over its threshold, and a dead
// reader costs an error message, not unbounded memory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include "runtime/output/buffered_writer.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

TEST(OutputBufferedWriter, WritesWhenFlushedOrOverTheThreshold) {
  test::TempDir dir;
  std::string path = dir.path() + "/out";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  {
    BufferedWriter w(fd, true, 16);
    w.buffer().append("short\n");
    w.line_done();
    EXPECT_EQ(test::read_file(path), "");
    w.buffer().append("a longer line!!\n");  // 22 bytes buffered: over 16
    w.line_done();
    EXPECT_EQ(test::read_file(path), "short\na longer line!!\n");
    w.buffer().append("tail\n");
  }  // destruction flushes and closes
  EXPECT_EQ(test::read_file(path), "short\na longer line!!\ntail\n");
}

TEST(OutputBufferedWriter, ClosedReaderIsAnErrorAndDropsTheBatch) {
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old);
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  ::close(fds[0]);
  BufferedWriter w(fds[1], true);
  w.buffer().append("nobody reads this\n");
  EXPECT_FALSE(w.flush());
  EXPECT_NE(w.last_error().find("pipe"), std::string::npos) << w.last_error();
  EXPECT_TRUE(w.buffer().empty());
  sigaction(SIGPIPE, &old, nullptr);
}

// A file that can take no more (here RLIMIT_FSIZE; a full disk alike) keeps whole lines only:
// the line a short write cut is taken off again, and every lost line is counted.
TEST(OutputBufferedWriter, AFileThatFillsUpKeepsWholeLinesAndCountsTheRest) {
  test::TempDir dir;
  std::string path = dir.path() + "/out.jsonl";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &ignore, &old);
  rlimit saved{};
  getrlimit(RLIMIT_FSIZE, &saved);
  rlimit small = saved;
  small.rlim_cur = 1000;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  {
    BufferedWriter w(fd, true, 1 << 20, "json:" + path);
    for (int i = 0; i < 100; ++i) {
      w.buffer().append("{\"n\":" + std::to_string(1000 + i) + ",\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxx\"}\n");
      w.line_done();
    }
    EXPECT_FALSE(w.flush());
    EXPECT_EQ(w.write_errors(), 1u);
    std::string kept = test::read_file(path);
    size_t lines = static_cast<size_t>(std::count(kept.begin(), kept.end(), '\n'));
    EXPECT_EQ(lines + w.lines_dropped(), 100u);
    EXPECT_GT(w.lines_dropped(), 0u);
    ASSERT_FALSE(kept.empty());
    EXPECT_EQ(kept.back(), '\n') << "a cut-off line was left in the file";
    EXPECT_FALSE(w.ended());  // a full file may have room again later
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  sigaction(SIGXFSZ, &old, nullptr);
}

TEST(OutputBufferedWriter, AClosedPipeEndsTheWriterAndCountsWhatFollows) {
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old);
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  ::close(fds[0]);
  BufferedWriter w(fds[1], true);
  w.buffer().append("a\nb\n");
  EXPECT_FALSE(w.flush());
  EXPECT_TRUE(w.ended());
  w.buffer().append("c\n");
  EXPECT_FALSE(w.flush());
  EXPECT_EQ(w.lines_dropped(), 3u);
  EXPECT_EQ(w.write_errors(), 1u);
  sigaction(SIGPIPE, &old, nullptr);
}

}  // namespace
}  // namespace seam::runtime
