#pragma once
// JSON lines, one object per alert or notice. Alert shape:
//   {"time":"2026-11-30T07:12:03.123Z","time_ns":1796022723123000000,"severity":"warning",
//    "rule":"sync_under_gil","file":"rules/gil.seam","line":12,"message":"...","pid":1234,
//    "tid":1234,"comm":"python3","cgroup":4242,"fields":{"duration_ns":20100000,"size_bytes":4096,
//    "stream":"0x10","device":0,"ok":true,"name":"x"},
//    "ustack":[{"addr":"0x7f..","symbol":"cudaStreamSynchronize","offset":0,"module":"libcudart.so.12"}],
//    "suppressed":0}
// Field names carry their unit: ns fields get "_ns", bytes fields "_bytes" (unless the name
// already ends so); numbers stay raw numbers. Pointers are "0x.." strings (a 64-bit address
// does not survive a double). Each stack is keyed by its field name ("ustack", "kstack").
// Notice shape: {"notice":"drops","severity":"warning","message":"...","rule":"x","count":12}.
#include <unistd.h>
#include <string>

#include "runtime/decode/result.hpp"
#include "runtime/output/buffered_writer.hpp"
#include "runtime/output/sink.hpp"

namespace seam::runtime {

class JsonSink : public Sink {
 public:
  explicit JsonSink(int fd = STDOUT_FILENO, bool owns_fd = false, std::string path = {});
  // Appends to `path` (O_APPEND, created 0644 if missing).
  static Result<std::unique_ptr<Sink>> open_file(const std::string& path);

  void write(const Alert& alert) override;
  void write_notice(const Notice& notice) override;
  void flush() override { out_.flush(); }
  std::string name() const override { return path_.empty() ? "json" : "json:" + path_; }
  void reopen() override;
  bool ended() const override { return out_.ended(); }
  void counters(std::vector<metrics::OutputCounter>& out) const override {
    append_writer_counters(name(), out_, out);
  }

 private:
  std::string path_;  // empty: stdout
  BufferedWriter out_;
};

// The JSON line (newline included) for an alert / a notice, appended to `out`.
// The version of the JSON alert and notice objects (docs/outputs.md lists every field): raised
// when a field changes meaning or type, not when one is added.
inline constexpr int kJsonSchemaVersion = 1;

void append_alert_json(std::string& out, const Alert& alert);
void append_notice_json(std::string& out, const Notice& notice);

}  // namespace seam::runtime
