// `seam run [PATH...]`: compile the rules, load and attach them, and send every match to the
// outputs until SIGINT/SIGTERM or --duration. With no path it runs the default pack (rules/).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/compile_rules.hpp"
#include "cli/compile_unit.hpp"
#include "cli/pods_flags.hpp"
#include "cli/routes.hpp"
#include "runtime/load/features.hpp"
#include "runtime/load/task_storage_probe.hpp"
#include "runtime/output/sink.hpp"
#include "runtime/output/stderr_notice_sink.hpp"
#include "runtime/output/webhook_options.hpp"
#include "runtime/run/parallel_for.hpp"
#include "runtime/run/reload_plan.hpp"
#include "runtime/run/session.hpp"
#include "runtime/safety/rule_file_safety.hpp"

namespace seam::cli {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<bool> g_reload{false};
void on_signal(int) { g_stop.store(true); }
void on_hangup(int) { g_reload.store(true); }

// rules/ next to the binary's install tree, else in the current directory, else the source tree.
std::string default_rules_dir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  for (const std::filesystem::path& p : {exe.parent_path() / "../rules", exe.parent_path() / "../share/seam/rules",
                                         std::filesystem::path("rules")})
    if (std::filesystem::is_directory(p, ec)) return std::filesystem::weakly_canonical(p, ec).string();
#ifdef SEAM_SOURCE_RULES
  return SEAM_SOURCE_RULES;
#else
  return "rules";
#endif
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
};

// Rule and stdlib files become kernel programs run as root: refuse any that someone other
// than root could have changed. Every refused file is named, then nothing is loaded.
bool rule_files_are_safe(const check::Program& program) {
  bool safe = true;
  for (const auto& source : program.sources)
    if (auto reason = runtime::insecure_reason(source->path())) {
      std::cerr << "seam run: " << *reason << "\n";
      safe = false;
    }
  return safe;
}

// The user's files (as rule_files() lists them) that declare a module rather than rules.
std::vector<std::string> user_modules(const check::Program& program, const std::vector<std::string>& files) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const ast::File& module : program.modules) {
    auto canonical = std::filesystem::weakly_canonical(module.source->path(), ec);
    for (const std::string& f : files)
      if (std::filesystem::weakly_canonical(f, ec) == canonical) out.push_back(f);
  }
  return out;
}

int run(RunFlags& flags) {
  // From the start: a SIGHUP while the rules compile asks for a reload, it does not kill seam.
  struct sigaction hup {};
  hup.sa_handler = on_hangup;
  sigaction(SIGHUP, &hup, nullptr);
  // The kernel feature probes (or their per-boot cache) run beside compiling and clang; the
  // session's probe_features() waits for this first call if it has not finished.
  std::jthread features([] { runtime::probe_features(); });
  if (flags.compile.paths.empty()) flags.compile.paths.push_back(default_rules_dir());
  std::vector<std::unique_ptr<runtime::Sink>> sinks;
  for (const std::string& spec : flags.outputs) {
    auto sink = runtime::make_sink(spec);
    if (!sink) {
      std::cerr << "seam run: --output " << spec << ": " << sink.error() << "\n";
      return 2;
    }
    sinks.push_back(std::move(*sink));
  }
  if (flags.pid > 0) flags.compile.codegen.target_pid = static_cast<uint32_t>(flags.pid);
  if (!flags.cgroup.empty()) {
    struct stat st {};
    std::string path = flags.cgroup.rfind("/sys/fs/cgroup", 0) == 0 ? flags.cgroup : "/sys/fs/cgroup/" + flags.cgroup;
    if (stat(path.c_str(), &st) != 0) {
      std::cerr << "seam run: --cgroup " << flags.cgroup << ": no such cgroup (" << path << ")\n";
      return 2;
    }
    flags.compile.codegen.target_cgroup = st.st_ino;  // cgroup v2 ids are the directory's inode
  }
  if (flags.ringbuf_kib < 4 || (flags.ringbuf_kib & (flags.ringbuf_kib - 1)) != 0) {
    std::cerr << "seam run: --ringbuf-size must be a power of two of at least 4 (KiB), not " << flags.ringbuf_kib
              << "\n";
    return 2;
  }
  flags.compile.lower.ringbuf_bytes = flags.ringbuf_kib * 1024;
  auto pods = pod_directory(flags.pods, [](const char* n) { return std::getenv(n); });
  if (!pods) {
    std::cerr << "seam run: " << pods.error() << "\n";
    return 2;
  }
  // All the files together first, as `seam lint` sees them: every diagnostic (also those across
  // files: a route to an output another file declares), the safety check, the declared outputs.
  const runtime::TaskStorageSupport& task_storage = runtime::task_storage_support();
  flags.compile.lower.task_storage = task_storage.usable;
  if (!task_storage.usable)
    std::cerr << "seam: note: per-thread maps fall back to LRU hashes: " << task_storage.reason << "\n";
  CompiledRules rules = compile_rules(flags.compile, std::cerr);
  if (!rules.ok) return 1;
  if (!flags.allow_insecure_rules && !rule_files_are_safe(rules.program)) return 2;
  // Outputs declared in the rule files join those on the command line; with neither, stdout.
  if (!declared_sinks(rules.program, sinks, std::cerr)) return 2;
  // Then one rule unit per rule file, each compiled alone, so that a reload replaces only the
  // files that changed (docs/operations.md).
  UnitOptions unit_options;
  unit_options.compile = flags.compile;
  unit_options.compile.outputs_elsewhere = true;
  unit_options.allow_insecure_rules = flags.allow_insecure_rules;
  std::vector<std::string> files = runtime::rule_files(flags.compile.paths);
  unit_options.module_files = user_modules(rules.program, files);
  std::erase_if(files, [&](const std::string& f) {
    return std::find(unit_options.module_files.begin(), unit_options.module_files.end(), f) !=
           unit_options.module_files.end();
  });
  std::vector<runtime::UnitCompileResult> compiled(files.size());
  std::vector<int> codes(files.size(), 0);
  runtime::parallel_for(files.size(),
                        [&](size_t i) { compiled[i] = compile_unit(files[i], unit_options, &codes[i]); });
  std::vector<std::unique_ptr<runtime::UnitBuild>> units;
  int exit_code = 0;
  double compile_ms = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    exit_code = std::max(exit_code, codes[i]);
    if (!compiled[i].build) std::cerr << compiled[i].diagnostics;  // the rest was printed above
    if (compiled[i].build) {
      compile_ms += compiled[i].build->compile_ms;
      units.push_back(std::move(compiled[i].build));
    }
  }
  if (exit_code != 0) return exit_code;
  if (sinks.empty()) {
    auto out = runtime::make_sink("stdout");
    sinks.push_back(std::move(*out));
  }
  // The stdout output writes notices on stderr itself; without it, they go there too.
  if (std::none_of(sinks.begin(), sinks.end(), [](const auto& s) {
        return dynamic_cast<const runtime::StdoutSink*>(s.get()) != nullptr;
      }))
    sinks.push_back(std::make_unique<runtime::StderrNoticeSink>());
  if (geteuid() != 0)
    std::cerr << "seam run: warning: not running as root; loading BPF programs will probably fail\n";

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  runtime::SessionOptions session;
  session.units = std::move(units);
  session.rule_paths = flags.compile.paths;
  session.module_files = unit_options.module_files;
  session.compile_unit = [unit_options](const std::string& path) { return compile_unit(path, unit_options); };
  session.reload = &g_reload;
  session.watch = !flags.no_watch;
  session.sinks = std::move(sinks);
  if (flags.pid > 0) session.pid = flags.pid;
  session.duration_ms = static_cast<int64_t>(flags.duration_s * 1000);
  session.alert_repeat_ms = static_cast<int64_t>(flags.alert_repeat_s * 1000);
  session.stop = &g_stop;
  session.exec_notice_rule = codegen::kExecNoticeRule;
  session.listen = flags.listen == "off" ? "" : flags.listen;
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
  app->add_option("paths", flags->compile.paths, "Rule files or directories (default: the rules/ pack)");
  app->add_option("--stdlib", flags->compile.extra_stdlib_dirs, "Extra module directory (repeatable)");
  app->add_option("-o,--output", flags->outputs, "stdout, json or json:PATH (repeatable; default stdout)");
  app->add_option("--duration", flags->duration_s, "Stop after this many seconds");
  app->add_option("--alert-repeat", flags->alert_repeat_s,
                  "Send a windowed rule's alert again this often (seconds) while it holds (default 60)")
      ->check(CLI::PositiveNumber);
  app->add_option("--pid", flags->pid, "Trace only this process");
  app->add_option("--cgroup", flags->cgroup, "Trace only this cgroup (path under /sys/fs/cgroup)");
  app->add_option("--listen", flags->listen,
                  "Serve Prometheus /metrics and /healthz here (default 127.0.0.1:9401; off: none)");
  app->add_option("--ringbuf-size", flags->ringbuf_kib, "Ring buffer size in KiB, a power of two (default 4096)");
  app->add_option("--pods", flags->pods.url,
                  "Kubelet-like PodList URL for pod names on alerts (e.g. https://NODE:10250/pods)");
  app->add_option("--pods-token-file", flags->pods.token_file,
                  "Bearer token for --pods (default: $SEAM_PODS_TOKEN when set)");
  app->add_flag("--pods-insecure", flags->pods.insecure, "Do not verify --pods' TLS certificate");
  app->add_flag("--allow-insecure-rules", flags->allow_insecure_rules,
                "Load rule and stdlib files even when a non-root user could have changed them");
  app->add_flag("--no-watch", flags->no_watch,
                "Do not watch the rule files for changes (SIGHUP still reloads them)");
  return {app, [flags] { return run(*flags); }};
}

}  // namespace seam::cli
