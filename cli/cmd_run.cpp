// `seam run [PATH...]`: compile the rules, load and attach them, and send every match to the
// outputs until SIGINT/SIGTERM or --duration. With no path it runs the default pack (rules/).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/compile_rules.hpp"
#include "cli/routes.hpp"
#include "runtime/load/features.hpp"
#include "runtime/load/task_storage_probe.hpp"
#include "runtime/output/sink.hpp"
#include "runtime/safety/rule_file_safety.hpp"
#include "runtime/run/session.hpp"

namespace seam::cli {

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

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
  int pid = 0;
  std::string cgroup;
  bool allow_insecure_rules = false;
  std::string listen = "127.0.0.1:9401";
  uint32_t ringbuf_kib = 4096;
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

int run(RunFlags& flags) {
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
  const runtime::TaskStorageSupport& task_storage = runtime::task_storage_support();
  flags.compile.lower.task_storage = task_storage.usable;
  if (!task_storage.usable)
    std::cerr << "seam: note: per-thread maps fall back to LRU hashes: " << task_storage.reason << "\n";
  CompiledRules rules = compile_rules(flags.compile, std::cerr);
  if (!rules.ok) return 1;
  if (!flags.allow_insecure_rules && !rule_files_are_safe(rules.program)) return 2;
  // Outputs declared in the rule files join those on the command line; with neither, stdout.
  if (!declared_sinks(rules.program, sinks, std::cerr)) return 2;
  if (sinks.empty()) {
    auto out = runtime::make_sink("stdout");
    sinks.push_back(std::move(*out));
  }
  build::BuildResult built = build_rules(rules, std::cerr);
  if (!built.ok) return 1;
  if (geteuid() != 0)
    std::cerr << "seam run: warning: not running as root; loading BPF programs will probably fail\n";

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  runtime::SessionOptions session;
  session.plan = &rules.lowered.plan;
  session.object = built.object;
  session.sinks = std::move(sinks);
  if (flags.pid > 0) session.pid = flags.pid;
  session.duration_ms = static_cast<int64_t>(flags.duration_s * 1000);
  session.stop = &g_stop;
  session.exec_notice_rule = codegen::kExecNoticeRule;
  session.listen = flags.listen == "off" ? "" : flags.listen;
  session.compile_ms = built.compile_ms;
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
  app->add_option("--pid", flags->pid, "Trace only this process");
  app->add_option("--cgroup", flags->cgroup, "Trace only this cgroup (path under /sys/fs/cgroup)");
  app->add_option("--listen", flags->listen,
                  "Serve Prometheus /metrics and /healthz here (default 127.0.0.1:9401; off: none)");
  app->add_option("--ringbuf-size", flags->ringbuf_kib, "Ring buffer size in KiB, a power of two (default 4096)");
  app->add_flag("--allow-insecure-rules", flags->allow_insecure_rules,
                "Load rule and stdlib files even when a non-root user could have changed them");
  return {app, [flags] { return run(*flags); }};
}

}  // namespace seam::cli
