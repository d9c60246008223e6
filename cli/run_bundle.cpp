#include "cli/run_bundle.hpp"

#include <unistd.h>

#include <iostream>
#include <iterator>
#include <optional>

#include "compiler/build/content_hash.hpp"
#include "compiler/bundle/bundle.hpp"
#include "runtime/load/task_storage_probe.hpp"
#include "runtime/output/plan_outputs.hpp"
#include "runtime/output/stderr_notice_sink.hpp"
#include "runtime/run/prebuilt_hook.hpp"
#include "runtime/run/session.hpp"
#include "runtime/safety/rule_file_safety.hpp"

namespace seam::cli {

LoadedBundle load_bundle(const std::string& path, const BundleLoadOptions& options) {
  LoadedBundle out;
  out.exit_code = 2;
  // The reload planner compares this with hash_file() of the path: hash before reading, so that
  // a bundle replaced in between is seen as changed again, never as already running.
  out.unit.hash = build::hash_file(path);
  // A bundle becomes kernel programs run as root, like a rule file: refuse one others could change.
  if (auto reason = options.allow_insecure_rules ? std::nullopt : runtime::insecure_reason(path)) {
    out.unit.error = "seam run: " + *reason;
    return out;
  }
  bundle::Decoded decoded = bundle::read_file(path);
  if (!decoded.bundle) {
    out.unit.error = decoded.error;
    return out;
  }
  const runtime::TaskStorageSupport& task_storage = runtime::task_storage_support();
  const bundle::Variant* variant = bundle::pick_variant(*decoded.bundle, task_storage.usable);
  if (!variant) {
    out.unit.error = path + ": the bundle has no variant for this kernel (" + task_storage.reason + ")";
    return out;
  }
  auto unit = std::make_unique<runtime::UnitBuild>();
  unit->path = path;
  unit->hash = out.unit.hash;
  unit->files = {{path, out.unit.hash}};
  unit->plan = variant->plan;
  unit->plan.ringbuf_bytes = options.ringbuf_bytes;
  unit->object = variant->object;
  out.unit.build = std::move(unit);
  out.exit_code = 0;
  return out;
}

int run_bundle(BundleRun run) {
  LoadedBundle loaded = load_bundle(run.path, run.load);
  if (!loaded.unit.build) {
    std::cerr << loaded.unit.error << "\n";
    return loaded.exit_code;
  }
  // The rule files' outputs and routes, as the bundle's plan carries them.
  auto declared = runtime::open_outputs(loaded.unit.build->plan);
  if (!declared) {
    std::cerr << declared.error() << "\n";
    return 2;
  }
  std::move(declared->begin(), declared->end(), std::back_inserter(run.sinks));
  if (run.sinks.empty()) {
    auto out = runtime::make_sink("stdout");
    run.sinks.push_back(std::move(*out));
  }
  run.sinks.push_back(std::make_unique<runtime::StderrNoticeSink>());  // as cmd_run's outputs
  if (geteuid() != 0)
    std::cerr << "seam run: warning: not running as root; loading BPF programs will probably fail\n";
  runtime::SessionOptions session;
  session.unit = std::move(loaded.unit.build);
  session.rule_paths = {run.path};
  session.compile_unit = [load = run.load](const std::string& path) { return load_bundle(path, load).unit; };
  session.compiler_output = [](const std::string& text) { std::cerr << text; };
  // The hook came built with seam (runtime/run/prebuilt_hook.hpp); a seam that could not build it
  // would need clang at start, which a bundle's host need not have.
  session.loader_hook = !runtime::prebuilt_loader_hook().empty();
  session.reload = run.reload;
  session.watch = run.watch;
  session.sinks = std::move(run.sinks);
  session.duration_ms = static_cast<int64_t>(run.duration_s * 1000);
  session.stop = run.stop;
  session.listen = run.listen;
  session.listen_required = run.listen_required;
  session.pods = std::move(run.pods);
  session.pods_shown_url = std::move(run.pods_shown_url);
  return runtime::run_session(std::move(session)).exit_code;
}

}  // namespace seam::cli
