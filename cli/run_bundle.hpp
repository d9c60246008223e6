#pragma once
// `seam run BUNDLE`: the compiled rules of `seam build` loaded as one rule unit, with no clang.
// A new bundle written over the file (or SIGHUP) replaces the running one, attached before the
// old one is detached, as a changed rule file replaces its unit (docs/operations.md).
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "runtime/identity/pod_directory.hpp"
#include "runtime/output/sink.hpp"
#include "runtime/run/unit_build.hpp"

namespace seam::cli {

struct BundleLoadOptions {
  uint32_t ringbuf_bytes = 1u << 22;  // --ringbuf-size: the loader sizes the ring from the plan
  bool allow_insecure_rules = false;
};

struct LoadedBundle {
  runtime::UnitCompileResult unit;  // unit.build is null with unit.error set when refused
  int exit_code = 0;                // 2: unsafe, unreadable, corrupt or incompatible
};

// Reads the bundle and picks the variant this kernel loads (task-local storage or not).
LoadedBundle load_bundle(const std::string& path, const BundleLoadOptions& options);

struct BundleRun {
  std::string path;
  BundleLoadOptions load;
  std::vector<std::unique_ptr<runtime::Sink>> sinks;  // from --output
  double duration_s = 0;
  std::string listen;
  bool listen_required = false;  // --listen given: a taken port is an error, not a warning
  bool watch = true;
  std::shared_ptr<runtime::PodDirectory> pods;
  std::string pods_shown_url;
  std::atomic<bool>* stop = nullptr;
  std::atomic<bool>* reload = nullptr;
};

int run_bundle(BundleRun run);

}  // namespace seam::cli
