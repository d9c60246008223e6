// `seam run [PATH...]`: compile the rules, load and attach them, and send every match to the
// outputs until SIGINT/SIGTERM or --duration. With no path it runs the default pack (rules/).
#include <malloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <thread>

#include "cli/adhoc_rules.hpp"
#include "cli/commands.hpp"
#include "cli/compile_driver.hpp"
#include "cli/default_rules.hpp"
#include "cli/dry_run.hpp"
#include "cli/kernel_probes.hpp"
#include "cli/pods_flags.hpp"
#include "cli/rule_toggles.hpp"
#include "cli/run_bundle.hpp"
#include "cli/traced_command.hpp"
#include "cli/tuning_files.hpp"  // has_rules, join_paths
#include "compiler/build/vmlinux_btf.hpp"
#include "compiler/bundle/bundle.hpp"
#include "compiler/plan/cgroup_path.hpp"
#include "runtime/identity/cgroup_resolver.hpp"
#include "runtime/load/features.hpp"
#include "runtime/load/task_storage_probe.hpp"
#include "runtime/load/uprobe_session_probe.hpp"
#include "runtime/output/plan_outputs.hpp"
#include "runtime/output/sink.hpp"
#include "runtime/output/stderr_notice_sink.hpp"
#include "runtime/output/webhook_options.hpp"
#include "runtime/run/loader_hook.hpp"
#include "runtime/run/session.hpp"
#include "runtime/safety/fd_limit.hpp"

namespace seam::cli {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<bool> g_reload{false};
void on_signal(int) {
  g_stop.store(true);
}
void on_hangup(int) {
  g_reload.store(true);
}

struct RunFlags {
  CompileOptions compile;
  std::vector<std::string> outputs;
  double duration_s = 0;
  double alert_repeat_s = 60;
  int pid = 0;
  std::string cgroup;
  bool allow_insecure_rules = false;
  std::string listen = "127.0.0.1:9401";
  uint32_t ringbuf_kib = 4096;
  bool no_watch = false;
  PodsFlags pods;
  ToggleFlags toggles;
  std::vector<std::string> expressions;  // -e 'RULE'
  bool listen_given = false;
  bool summary = false;  // --summary: the metrics' terminal summary at exit
  std::string report;    // --report DURATION: and every DURATION
  std::string command;   // -c CMD
  bool dry_run = false;
  bool strict = false;
};

// Before anything loads: each rule that would attach nothing now is a warning (an error with
// --strict, as is any unavailable probe). Returns false when --strict fails the run.
bool attach_check(const std::vector<RuleStatus>& statuses, bool strict) {
  bool ok = true;
  for (const RuleStatus& r : statuses) {
    std::string why;
    for (const ProbeStatus& p : r.probes) {
      if (p.unavailable.empty()) continue;
      if (why.empty()) why = p.what + ": " + p.unavailable;
      if (strict && !p.waits) {
        std::cerr << "seam run: error: rule " << r.rule << " (" << r.origin << "): " << p.what
                  << " is unavailable: " << p.unavailable << "\n";
        ok = false;
      }
    }
    if (r.attaches_now) continue;
    std::cerr << "seam run: " << (strict ? "error" : "warning") << ": rule " << r.rule << " (" << r.origin
              << ") attaches nothing now" << (why.empty() ? "" : ": " + why) << "\n";
    if (strict) ok = false;
  }
  return ok;
}

// "10s", "1m", "500ms", "2" (seconds) as milliseconds; -1 when it is none of those.
int64_t report_ms(const std::string& text) {
  size_t end = 0;
  double v = 0;
  try {
    v = std::stod(text, &end);
  } catch (...) {
    return -1;
  }
  std::string unit = text.substr(end);
  double scale = unit == "ms"                  ? 1
                 : unit == "s" || unit.empty() ? 1000
                 : unit == "m"                 ? 60000
                 : unit == "h"                 ? 3600000
                                               : -1;
  if (scale < 0 || v <= 0) return -1;
  return static_cast<int64_t>(v * scale);
}

// What of the command line reaches the generated C, for the start record (start_clang_early): a
// start with other values compiles however unchanged its files are. A new flag that changes the C
// belongs here too. --pid's process and -c's cgroup are not in the C (plan::Plan::target_tgid),
// only whether there is one; nor is --cgroup's path (the scope map holds it).
std::string c_settings(const RunFlags& flags) {
  std::ostringstream s;
  s << "pid " << (flags.pid > 0) << "\ncgroup " << !flags.cgroup.empty() << "\ncommand cgroup "
    << (flags.compile.lower.target_cgroup != 0) << "\nustack copy " << flags.compile.lower.ustack_copy_bytes
    << "\n";
  for (const std::string& rule : flags.toggles.disable) s << "disable " << rule << "\n";
  for (const std::string& rule : flags.toggles.enable) s << "enable " << rule << "\n";
  return s.str();
}

// -e texts and a `-` path become files of a private directory (adhoc_rules.hpp).
bool add_adhoc_rules(RunFlags& flags, AdhocRules& adhoc) {
  std::vector<std::string> stdlib = check::default_stdlib_dirs();
  stdlib.insert(stdlib.end(), flags.compile.extra_stdlib_dirs.begin(), flags.compile.extra_stdlib_dirs.end());
  for (size_t i = 0; i < flags.expressions.size(); ++i) {
    auto path = adhoc.add("command-line-" + std::to_string(i + 1), flags.expressions[i], stdlib);
    if (!path) {
      std::cerr << "seam run: -e: " << path.error() << "\n";
      return false;
    }
    flags.compile.paths.push_back(*path);
  }
  for (std::string& p : flags.compile.paths) {
    if (p != "-") continue;
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    auto path = adhoc.add("stdin", std::move(text), stdlib);
    if (!path) {
      std::cerr << "seam run: -: " << path.error() << "\n";
      return false;
    }
    p = *path;
  }
  flags.compile.shown_names = adhoc.shown_names();
  return true;
}

int run(RunFlags& flags) {
  // From the start: a SIGHUP while the rules compile asks for a reload, it does not kill seam.
  struct sigaction hup {};
  hup.sa_handler = on_hangup;
  sigaction(SIGHUP, &hup, nullptr);
  // A reader that goes away (`seam run | head -1`) ends that output (EPIPE), not seam.
  signal(SIGPIPE, SIG_IGN);
  runtime::raise_fd_limit();
  // The kernel feature probes (or their per-boot cache) run beside compiling and clang; the
  // session's probe_features() waits for this first call if it has not finished.
  std::jthread features([] { runtime::probe_features(); });
  // The dynamic loader hook's object (loader_hook.hpp) builds with clang beside the rules' build,
  // not after the probes attach, where seam came without it built (prebuilt_hook.hpp); a bundle
  // run builds nothing.
  std::jthread loader_hook;
  // Where the kernel's BTF must be parsed (it cannot be mapped: btf_types.hpp), the hook's types
  // header and the rules' are dumped from one parse, not two (vmlinux_btf.hpp); let go before
  // loading, so that its pages are trimmed below.
  std::optional<build::KeepVmlinuxBtf> keep_btf;
  keep_btf.emplace();
  if (!flags.dry_run && (flags.compile.paths.size() != 1 || !bundle::is_bundle_file(flags.compile.paths[0])))
    loader_hook = std::jthread([] { runtime::LoaderHook::build_ahead(); });
  AdhocRules adhoc;  // removed when the run ends
  bool adhoc_used =
      !flags.expressions.empty() ||
      std::find(flags.compile.paths.begin(), flags.compile.paths.end(), "-") != flags.compile.paths.end();
  if (!add_adhoc_rules(flags, adhoc)) return 2;
  if (!flags.report.empty() && report_ms(flags.report) < 0) {
    std::cerr << "seam run: --report " << flags.report << ": not a duration (10s, 1m, 500ms)\n";
    return 2;
  }
  if (flags.compile.paths.empty()) flags.compile.paths.push_back(default_rules_dir());
  const bool bundle_run = flags.compile.paths.size() == 1 && bundle::is_bundle_file(flags.compile.paths[0]);
  // Whether this kernel has uprobe sessions, asked now beside reading and checking the rules:
  // without the per-boot cache its probe registers a uprobe, which can wait out an RCU grace
  // period (10-14 ms here) that lowering would otherwise wait for. Lowering asks it again below.
  std::jthread session_probe;
  if (!bundle_run) session_probe = std::jthread([] { runtime::uprobe_session_support(); });
  flags.compile.toggles = flags.toggles.toggles();
  TracedCommand traced;
  if (!flags.command.empty()) {
    if (Result<void> started = traced.start(flags.command, runtime::cgroup2_root()); !started) {
      std::cerr << "seam run: -c: " << started.error() << "\n";
      return 2;
    }
    flags.compile.lower.target_cgroup = traced.cgroup_id();
  }
  // clang's own start runs beside everything up to the build. Started after the command's child:
  // held until the probes attach, that child keeps what seam had open, and a clang's input pipe
  // held open there would never reach its end.
  EarlyClang early_clang;
  if (!flags.dry_run && !bundle_run) early_clang = start_clang_early(flags.compile, c_settings(flags));
  if (flags.pid > 0 && ::kill(flags.pid, 0) != 0 && errno == ESRCH) {
    std::cerr << "seam run: --pid " << flags.pid << ": no such process\n";
    return 2;
  }
  std::vector<std::unique_ptr<runtime::Sink>> sinks;
  for (const std::string& spec : flags.outputs) {
    auto sink = runtime::make_sink(spec);
    if (!sink) {
      // A webhook spec holds secrets (its path, query, headers): show only its origin.
      std::string shown =
          spec.rfind("webhook:", 0) == 0 ? "webhook:" + runtime::redact_url(spec.substr(8)) : spec;
      std::cerr << "seam run: --output " << shown << ": " << sink.error() << "\n";
      return 2;
    }
    sinks.push_back(std::move(*sink));
  }
  if (bundle_run) {
    if (flags.pid > 0 || !flags.cgroup.empty()) {
      std::cerr << "seam run: " << flags.compile.paths[0]
                << ": --pid and --cgroup are compiled into the programs; a bundle runs without them\n";
      return 2;
    }
  } else {
    for (const std::string& path : flags.compile.paths)
      if (bundle::is_bundle_file(path)) {
        std::cerr << "seam run: " << path << " is a bundle: run it alone, not with rule files\n";
        return 2;
      }
  }
  if (flags.pid > 0) flags.compile.lower.target_pid = static_cast<uint32_t>(flags.pid);
  if (!flags.cgroup.empty()) {
    // The whole subtree: its processes enter the scope map (runtime/run/scope_keeper.hpp), and
    // every program tests that map first, whatever its file's own scope.
    std::string path = plan::cgroup_dir(flags.cgroup);
    struct stat st {};
    if (plan::cgroup_v2_relative(flags.cgroup).empty() || stat(path.c_str(), &st) != 0 ||
        !S_ISDIR(st.st_mode)) {
      std::cerr << "seam run: --cgroup " << flags.cgroup << ": no such cgroup v2 directory (" << path
                << ")\n";
      return 2;
    }
    flags.compile.codegen.operator_scope = true;
    flags.compile.lower.operator_scope = true;
  }
  // The kernel takes a ring of at most 4 GiB less a few pages: the largest power of two is 2 GiB
  // (and 4 GiB in bytes would not fit the plan's 32 bits).
  constexpr uint32_t kMaxRingbufKib = 2u << 20;
  if (flags.ringbuf_kib < 4 || (flags.ringbuf_kib & (flags.ringbuf_kib - 1)) != 0 ||
      flags.ringbuf_kib > kMaxRingbufKib) {
    std::cerr << "seam run: --ringbuf-size must be a power of two from 4 to " << kMaxRingbufKib
              << " (KiB: 4 KiB to 2 GiB), not " << flags.ringbuf_kib << "\n";
    return 2;
  }
  flags.compile.lower.ringbuf_bytes = flags.ringbuf_kib * 1024;
  auto pods = pod_directory(flags.pods, [](const char* n) { return std::getenv(n); });
  if (!pods) {
    std::cerr << "seam run: " << pods.error() << "\n";
    return 2;
  }
  if (bundle_run) {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    BundleRun run;
    run.path = flags.compile.paths[0];
    run.load = {flags.compile.lower.ringbuf_bytes, flags.allow_insecure_rules};
    run.sinks = std::move(sinks);
    run.duration_s = flags.duration_s;
    run.listen = flags.listen == "off" || flags.listen == "none" ? "" : flags.listen;
    run.listen_required = flags.listen_given;
    run.watch = !flags.no_watch;
    run.pods = std::move(*pods);
    run.pods_shown_url = runtime::redact_url(flags.pods.url);
    run.stop = &g_stop;
    run.reload = &g_reload;
    return run_bundle(std::move(run));
  }
  // All the files together first, as `seam lint` sees them: every diagnostic (also those across
  // files: a route to an output another file declares), the safety check, the declared outputs.
  const runtime::TaskStorageSupport& task_storage = runtime::task_storage_support();
  flags.compile.lower.task_storage = task_storage.usable;
  if (!task_storage.usable)
    std::cerr << "seam: note: per-thread maps fall back to LRU hashes: " << task_storage.reason << "\n";
  // Which program kinds this kernel has (the probe started above, cached per boot): raw_syscalls
  // events become raw tracepoint programs where it has them, with no fallback built beside them
  // (compiler/lower/raw_syscall_tracepoints.hpp).
  flags.compile.lower.has_feature = [](plan::Feature f) { return runtime::probe_features().available(f); };
  // take_gil's entry and return as one uprobe session where the kernel has them: a call that finds
  // the GIL free ends at its entry (compiler/lower/uprobe_session.cpp).
  flags.compile.lower.uprobe_session = [] { return runtime::uprobe_session_support().usable; };
  // One driver for the start and every reload: each file is read and checked once, all together
  // as `seam lint` sees them (every diagnostic, also those across files: a route to an output
  // another file declares), then every rule file is lowered, generated and built into one object
  // (one clang run; one program per probe site however many files probe it). A reload builds the
  // whole set again (docs/operations.md).
  DriverOptions driver_options;
  driver_options.compile = flags.compile;
  driver_options.compile.probe_missing = missing_on_this_kernel;  // such rules left out, with a notice
  driver_options.allow_insecure_rules = flags.allow_insecure_rules;
  auto driver = std::make_shared<CompileDriver>(std::move(driver_options));
  CompiledRules rules = driver->compile_all(std::cerr);
  if (!rules.ok) return 1;
  if (!driver->sources_are_safe(rules.program, std::cerr)) return 2;
  // Outputs declared in the rule files join those on the command line; with neither, stdout.
  auto declared = runtime::open_outputs(rules.lowered.plan);
  if (!declared) {
    std::cerr << declared.error() << "\n";
    return 2;
  }
  std::move(declared->begin(), declared->end(), std::back_inserter(sinks));
  if (!has_rules(rules.program)) {
    std::cerr << "seam run: no rule or metric to run in " << join_paths(flags.compile.paths) << "\n";
    return 1;
  }
  std::vector<RuleStatus> statuses = dry_run(rules.lowered.plan, runtime::probe_features(), flags.pid);
  if (flags.dry_run) {
    print_dry_run(statuses, rules.program.tuned, std::cout);
    std::cout.flush();
    return attach_check(statuses, flags.strict) ? 0 : 1;
  }
  if (!attach_check(statuses, flags.strict)) return 1;
  // The ring and the loader hook, set up while clang builds (start_ahead.hpp). Lowering sized the
  // ring: --ringbuf-size, or more for the largest records.
  auto ahead = std::make_unique<runtime::StartAhead>(
      rules.lowered.plan.ringbuf_bytes, flags.pid > 0 ? std::optional<pid_t>(flags.pid) : std::nullopt);
  early_clang.on_first_part = [&ahead] { ahead->attach_loaders(); };
  runtime::UnitCompileResult unit =
      driver->build_unit(rules, std::cerr, std::move(early_clang));  // lowering notes, clang's errors
  keep_btf.reset();
  if (!unit.build) return 1;
  // The compile threads' freed memory (kernel BTF, types headers, clang's output) stays resident
  // in their malloc arenas; hand it back before loading adds its own peak (docs/BENCHMARK.md, stop 20).
  malloc_trim(0);
  double compile_ms = unit.build->compile_ms;
  if (sinks.empty()) {
    auto out = runtime::make_sink("stdout");
    sinks.push_back(std::move(*out));
  }
  // Notices on stderr from their own sink and queue, whatever the outputs (the stdout output
  // writes none: behind a stalled stdout they would wait with its alerts).
  sinks.push_back(std::make_unique<runtime::StderrNoticeSink>());
  if (geteuid() != 0)
    std::cerr << "seam run: warning: not running as root; loading BPF programs will probably fail\n";

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  runtime::SessionOptions session;
  session.unit = std::move(unit.build);
  session.ahead = std::move(ahead);
  session.ringbuf_bytes = flags.compile.lower.ringbuf_bytes;  // also with no units yet
  session.rule_paths = flags.compile.paths;
  session.compile_unit = [driver](const std::string&) { return driver->compile_unit(); };
  session.compiler_output = [](const std::string& text) { std::cerr << text; };
  session.reload = &g_reload;
  session.watch = !flags.no_watch;
  session.sinks = std::move(sinks);
  if (flags.pid > 0) session.pid = flags.pid;
  session.cgroup = flags.cgroup;
  session.duration_ms = static_cast<int64_t>(flags.duration_s * 1000);
  session.alert_repeat_ms = static_cast<int64_t>(flags.alert_repeat_s * 1000);
  session.stop = &g_stop;
  session.listen = flags.listen == "off" || flags.listen == "none" ? "" : flags.listen;
  session.listen_required = flags.listen_given;
  // Ad-hoc runs, and runs on a terminal, end with the metrics' summary, as bpftrace does.
  session.summary_at_exit = flags.summary || adhoc_used || ::isatty(STDOUT_FILENO);
  if (!flags.report.empty()) session.report_ms = report_ms(flags.report);
  if (!flags.command.empty()) {
    session.on_ready = [&traced] { traced.release(); };
    session.finished = [&traced] { return traced.exited(); };
  }
  session.compile_ms = compile_ms;
  session.pods = std::move(*pods);
  session.pods_shown_url = runtime::redact_url(flags.pods.url);
  runtime::SessionResult result = runtime::run_session(std::move(session));
  return result.exit_code;
}

}  // namespace

Command add_run(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("run", "Compile rules, attach their probes and report every match");
  auto flags = std::make_shared<RunFlags>();
  app->add_option("paths", flags->compile.paths,
                  "Rule files or directories, - for standard input, or one bundle of `seam build` (default: "
                  "the rules/ pack)");
  app->add_option("-e,--expr", flags->expressions,
                  "Run this rule text (a one-liner needs no `use`; repeatable)")
      ->allow_extra_args(false);
  app->add_option("--stdlib", flags->compile.extra_stdlib_dirs, "Extra module directory (repeatable)")
      ->allow_extra_args(false);
  app->add_option("-o,--output", flags->outputs, "stdout, json or json:PATH (repeatable; default stdout)")
      ->allow_extra_args(false);
  app->add_option("--duration", flags->duration_s, "Stop after this many seconds");
  app->add_option("--alert-repeat", flags->alert_repeat_s,
                  "Send a windowed rule's alert again this often (seconds) while it holds (default 60)")
      ->check(CLI::PositiveNumber);
  app->add_option("--pid", flags->pid, "Trace only this process; the run ends when it exits");
  app->add_option(
      "-c,--command", flags->command,
      "Start this shell command once the probes are attached, trace it and its children, stop when it exits");
  app->add_option("--cgroup", flags->cgroup,
                  "Trace only this cgroup v2 subtree (a path under the v2 mount: /sys/fs/cgroup, or "
                  "/sys/fs/cgroup/unified on hybrid hosts)");
  app->add_option("--listen", flags->listen,
                  "Serve Prometheus /metrics and /healthz here (default 127.0.0.1:9401; port 0: a free port, "
                  "which the listening notice names; off or none: not at all)")
      ->each([flags](const std::string&) { flags->listen_given = true; });
  app->add_option("--ringbuf-size", flags->ringbuf_kib,
                  "Ring buffer size in KiB, a power of two (default 4096)");
  add_ustack_copy_option(*app, flags->compile.lower);
  app->add_option("--pods", flags->pods.url,
                  "Kubelet-like PodList URL for pod names on alerts (e.g. https://NODE:10250/pods)");
  app->add_option("--pods-token-file", flags->pods.token_file,
                  "Bearer token for --pods (default: $SEAM_PODS_TOKEN when set)");
  app->add_flag("--pods-insecure", flags->pods.insecure, "Do not verify --pods' TLS certificate");
  app->add_flag("--allow-insecure-rules", flags->allow_insecure_rules,
                "Load rule and stdlib files even when a non-root user could have changed them");
  app->add_flag("--no-watch", flags->no_watch,
                "Do not watch the rule files for changes (SIGHUP still reloads them)");
  add_toggle_flags(*app, flags->toggles);
  app->add_flag(
      "--dry-run", flags->dry_run,
      "List each rule's events, probes, and the files and processes they would attach to now; load nothing");
  app->add_flag("--strict", flags->strict,
                "Fail (exit 1) when a rule would attach nothing now or a probe is unavailable");
  app->add_flag("--summary", flags->summary,
                "At exit, print every metric as a summary (histogram bars, counts); on by default with -e, - "
                "or a terminal");
  app->add_option("--report", flags->report,
                  "Print the metrics' summary every DURATION (10s, 1m) and at exit");
  return {app, [flags] { return run(*flags); }};
}

}  // namespace seam::cli
