#pragma once
// `seam run --dry-run` and the attach check of every run: per rule, its event, its probes, the
// library files and processes each uprobe would attach to now, and what is unavailable and why.
// Nothing is loaded: libraries are found by reading /proc, tracepoints by their tracefs folder,
// kernel program kinds by the feature probe's (cached) answers.
#include <iosfwd>
#include <string>
#include <vector>

#include "compiler/check/program.hpp"
#include "compiler/plan/plan.hpp"
#include "runtime/load/features.hpp"

namespace seam::cli {

struct ProbeStatus {
  std::string what;                // "tracepoint syscalls:sys_enter_futex", "uprobe cudart:cudaMalloc"
  std::vector<std::string> files;  // uprobes: "/usr/lib/libcudart.so.12 (pids 12, 34)"
  std::string unavailable;         // why it cannot attach now; empty when it can
  bool waits = false;              // a uprobe whose library no process maps yet: attaches when one does
};

struct RuleStatus {
  std::string rule, origin, event;
  std::vector<ProbeStatus> probes;
  bool attaches_now = false;  // at least one probe would attach now (windowed rules: their metric's)
};

// `pid`: --pid (only that process's files); `features`: the feature probe's answers.
std::vector<RuleStatus> dry_run(const plan::Plan& plan, const runtime::FeatureSet& features, int pid);

void print_dry_run(const std::vector<RuleStatus>& rules, const std::vector<check::TunedRule>& tuned,
                   std::ostream& out);

}  // namespace seam::cli
