#pragma once
// `seam run` once its rules are compiled: load the object, attach its probes, follow new
// processes and libraries, deliver records to the outputs, and detach everything on the way out.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/identity/pod_directory.hpp"
#include "runtime/output/sink.hpp"
#include "runtime/run/start_ahead.hpp"
#include "runtime/run/unit_build.hpp"

namespace seam::runtime {

struct SessionOptions {
  // After attaching (and binding the metrics port), keep only the capabilities reloads and new
  // processes need (runtime/safety/capabilities.hpp).
  bool drop_capabilities = true;
  // The rule unit: every rule file of the run in one object (or a bundle's object). A reload
  // builds it again with compile_unit and replaces it whole.
  std::unique_ptr<UnitBuild> unit;
  uint32_t ringbuf_bytes = 1u << 22;  // --ringbuf-size: the one ring, which a reload's unit shares
  // Hot reload (docs/operations.md): the rule paths to rescan and how to build the unit again; a
  // reload happens when `reload` is set (SIGHUP) and, with `watch`, when a rule file changes.
  std::vector<std::string> rule_paths;
  UnitCompiler compile_unit;
  // The dynamic loader's hook (loader_hook.hpp) is built with clang at start; a bundle run builds
  // nothing (it may have no clang), so it goes without the hook and says so in a notice.
  bool loader_hook = true;
  // The ring and the hook set up while the unit was built (start_ahead.hpp): taken over when its
  // ring is large enough for the unit, else closed and made again. Null: made at start.
  std::unique_ptr<StartAhead> ahead;
  // Where a reload's compiler output goes (its diagnostics as `seam lint` prints them, and which
  // file failed): the operator's terminal, not an output (cli: stderr). Null: nowhere; the
  // outputs get the reload-failed notice either way.
  std::function<void(const std::string& text)> compiler_output;
  std::atomic<bool>* reload = nullptr;
  bool watch = true;
  std::vector<std::unique_ptr<Sink>> sinks;
  std::optional<pid_t> pid;                 // --pid: scan and trace only this process
  std::string cgroup;                       // --cgroup: only processes in this v2 subtree (scope_keeper.hpp)
  int64_t duration_ms = 0;                  // --duration: stop after this long (0: until a signal)
  int poll_ms = 20;                         // the reader's timed consume: the latency of batched delivery
  int rescan_ms = 500;                      // full rescan for libraries loaded by dlopen
  const std::atomic<bool>* stop = nullptr;  // set by a signal handler
  std::string listen;                       // Prometheus /metrics and /healthz ("" for none)
  bool listen_required = false;             // --listen given: failing to serve it is an error, not a warning
  // The metrics' terminal summary on stdout (metric_summary.hpp): at exit, and every report_ms.
  bool summary_at_exit = false;
  // -c CMD: called once every probe is attached (the command may start), and polled: true ends
  // the run (the command exited).
  std::function<void()> on_ready;
  std::function<bool()> finished;
  int64_t report_ms = 0;               // --report: the summary's period (0: only summary_at_exit's)
  int64_t alert_repeat_ms = 60000;     // --alert-repeat: a windowed state that holds is sent again this often
  double compile_ms = 0;               // for seam's own metrics
  std::shared_ptr<PodDirectory> pods;  // --pods: pod name and namespace on alerts (null: UID only)
  std::string pods_shown_url;          // for its notices
};

struct SessionResult {
  int exit_code = 0;  // 1: the unit, the ring or a required --listen could not start
};

SessionResult run_session(SessionOptions options);

}  // namespace seam::runtime
