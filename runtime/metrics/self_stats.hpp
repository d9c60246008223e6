#pragma once
// seam's own health, gathered by the session from the stages that count it and served with the
// rule metrics. Every field is optional in spirit: zero or empty is exposed as such.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace seam::runtime::metrics {

struct RuleStats {
  std::string rule;
  uint64_t records = 0;             // records the rule's programs emitted and seam read
  uint64_t dropped = 0;             // records lost because the ring buffer was full
  uint64_t alerts = 0;              // alerts written
  uint64_t suppressed = 0;          // alerts held back by `limit` or grouping
  uint64_t probes_attached = 0;     // a probe shared by rules counts for each
  uint64_t probes_failed = 0;       // tried and refused by the kernel
  uint64_t probes_unavailable = 0;  // not tried: the kernel lacks the feature (kprobes, fentry)
};

struct MapFill {
  std::string map;
  uint64_t entries = 0;
  uint64_t max_entries = 0;
  std::optional<uint64_t> evictions;  // where measurable
};

// One counter of one output: {"ops", "delivered", 12}. `gauge` for values that go down
// (queue_depth, spool_bytes); `reason` adds a reason label (drops).
struct OutputCounter {
  std::string output;
  std::string counter;
  uint64_t value = 0;
  bool gauge = false;
  std::string reason;
};

struct SelfStats {
  std::vector<RuleStats> rules;
  uint64_t probes_attached = 0;
  uint64_t probes_failed = 0;
  uint64_t probes_unavailable = 0;  // programs not loaded: their kernel feature is missing here
  uint64_t library_files_attached = 0;
  uint64_t processes_tracked = 0;  // processes mapping a library file with probes attached
  double compile_ms = 0;
  double load_ms = 0;
  uint64_t ringbuf_bytes = 0;
  std::optional<double> ringbuf_fill;  // 0..1 at the last look, where known
  std::vector<MapFill> maps;           // the engine adds its metric maps itself
  std::vector<OutputCounter> outputs;
  uint64_t reload_errors = 0;
  uint64_t reloads = 0;                 // reloads that started, replaced or stopped a rule file
  std::optional<double> last_reload_s;  // unix time of the last such reload
  uint64_t open_fds = 0;                // descriptors seam holds (/proc/self/fd)
  uint64_t max_fds = 0;                 // RLIMIT_NOFILE's soft limit
  uint64_t symbolizer_processes = 0;    // process snapshots the stack symbolizer keeps
};

}  // namespace seam::runtime::metrics
