#pragma once
// Where alerts go. A sink formats into a buffered writer; the pipeline calls flush() per batch
// of records and when the reader goes idle, and at exit. Sinks are used from one thread.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/decode/result.hpp"
#include "runtime/metrics/self_stats.hpp"
#include "runtime/output/alert.hpp"

namespace seam::runtime {

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const Alert& alert) = 0;
  virtual void write_notice(const Notice& notice) = 0;
  virtual void flush() = 0;
  // Appends the sink's own counters (deliveries, drops) for seam's metrics; most sinks have none.
  // Called from the metrics side while the sink may be writing: counters are read atomically.
  virtual void counters(std::vector<metrics::OutputCounter>& /*out*/) const {}
  // The output's name in metrics and notices ("stdout", "json:/var/log/seam.jsonl").
  virtual std::string name() const { return {}; }
  // SIGHUP: a file output opens its path again (after rotation; a removed file is recreated).
  virtual void reopen() {}
  // True once the output can take nothing more (its reader closed the pipe).
  virtual bool ended() const { return false; }
  // True for a sink with its own bounded queue and thread (webhooks): the session runs every
  // other sink behind a QueuedSink, so that one stalled output never stalls the rest.
  virtual bool queues_itself() const { return false; }
  // False for a sink that writes notices only: its queue is not handed the alerts.
  virtual bool writes_alerts() const { return true; }
};

class BufferedWriter;
// The write-loss counters of a writer, as output counters of `output`.
void append_writer_counters(const std::string& output, const BufferedWriter& writer,
                            std::vector<metrics::OutputCounter>& out);

// "stdout" (readable lines), "json" (JSON lines on stdout), "json:PATH" (JSON lines appended
// to PATH, created if missing), "webhook:URL[,option...]" (HTTP POST, see webhook_options.hpp
// and docs/outputs.md). Anything else, or a file that cannot be opened, is an error.
Result<std::unique_ptr<Sink>> make_sink(std::string_view spec);

struct WebhookOptions;
// A webhook output with these options (identity lookups for its labels included).
Result<std::unique_ptr<Sink>> make_webhook_sink(WebhookOptions options);

}  // namespace seam::runtime
