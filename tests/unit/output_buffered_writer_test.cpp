// The batch writer under the sinks: batches until flushed or over its threshold, and a dead
// reader costs an error message, not unbounded memory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

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

}  // namespace
}  // namespace seam::runtime
