#pragma once
// What an output loses on its own (its queue full behind a slow disk or reader, a failed write)
// told as `output-drops` notices: one per output and reason, with the count since the last one.
// Without it those losses were counted only on /metrics, and a JSON file 21,410 records short
// said nothing (docs/BENCHMARK.md, stop 19). Webhooks tell their own drops and are skipped.
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "runtime/output/alert.hpp"
#include "runtime/output/sink.hpp"

namespace seam::runtime {

class OutputLossReporter {
 public:
  // Notices for the losses counted since the last call (none when nothing was lost).
  std::vector<Notice> take(std::span<const std::shared_ptr<Sink>> sinks);

 private:
  std::map<std::pair<std::string, std::string>, uint64_t> reported_;  // (output, reason) -> told
};

}  // namespace seam::runtime
