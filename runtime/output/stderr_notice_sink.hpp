#pragma once
// Notices on stderr whatever the outputs are: with only `-o json:PATH` or a webhook, startup
// warnings (probe-unavailable, probe-failed) must still reach journald and `kubectl logs`.
// Alerts are not written here; the other outputs have them.
#include <unistd.h>

#include "runtime/output/stdout_sink.hpp"

namespace seam::runtime {

class StderrNoticeSink final : public Sink {
 public:
  explicit StderrNoticeSink(int notice_fd = STDERR_FILENO) : text_(-1, notice_fd) {}
  void write(const Alert& /*alert*/) override {}
  void write_notice(const Notice& notice) override { text_.write_notice(notice); }
  void flush() override {}
  bool writes_alerts() const override { return false; }

 private:
  StdoutSink text_;  // its alert writer stays empty: only notices pass
};

}  // namespace seam::runtime
