#pragma once
// One readable line per alert, then its stacks indented below:
//   2026-11-30T07:12:03.123Z warning sync_under_gil: stream sync blocked 20.1ms with the GIL held  pid=1234
//   tid=1234 comm=python3 stream=0x10
//       #0 0x7f3a2c01d2a0  cudaStreamSynchronize+0x0 (libcudart.so.12)
// Notices go to the notice fd (stderr) as "seam: warning: rule X: message".
#include <unistd.h>

#include "runtime/output/buffered_writer.hpp"
#include "runtime/output/sink.hpp"

namespace seam::runtime {

class StdoutSink : public Sink {
 public:
  // No notices at all: `seam run` writes them to stderr through a StderrNoticeSink of their own,
  // so a stdout nobody reads cannot hold back the notice that it is losing alerts.
  static constexpr int kNoNotices = -1;

  explicit StdoutSink(int out_fd = STDOUT_FILENO, int notice_fd = STDERR_FILENO);
  void write(const Alert& alert) override;
  void write_notice(const Notice& notice) override;
  void flush() override { out_.flush(); }
  std::string name() const override { return "stdout"; }
  bool ended() const override { return out_.ended(); }
  void counters(std::vector<metrics::OutputCounter>& out) const override {
    append_writer_counters(name(), out_, out);
  }

 private:
  BufferedWriter out_;
  BufferedWriter notices_;
};

// The text the stdout sink writes for an alert, appended to `out` (for tests and previews).
void append_alert_text(std::string& out, const Alert& alert);

}  // namespace seam::runtime
