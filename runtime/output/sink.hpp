#pragma once
// Where alerts go. A sink formats into a buffered writer; the pipeline calls flush() per batch
// of records and when the reader goes idle, and at exit. Sinks are used from one thread.
#include <memory>
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
  virtual void counters(std::vector<metrics::OutputCounter>& /*out*/) const {}
};

// "stdout" (readable lines), "json" (JSON lines on stdout), "json:PATH" (JSON lines appended
// to PATH, created if missing), "webhook:URL[,option...]" (HTTP POST, see webhook_options.hpp
// and docs/outputs.md). Anything else, or a file that cannot be opened, is an error.
Result<std::unique_ptr<Sink>> make_sink(std::string_view spec);

}  // namespace seam::runtime
