// Reloads: which files changed, compiling them on a worker, and swapping their units in (the
// new one attached before the old one stops). See docs/operations.md.
#include <time.h>

#include <iostream>

#include "runtime/run/reload_plan.hpp"
#include "runtime/run/session_state.hpp"

namespace seam::runtime::session_detail {

namespace {

double unix_now_s() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace

// Metric names are global (one Prometheus family each): a file may not declare one another
// running file has.
std::optional<std::string> Session::conflict(const std::string& path, const plan::Plan& plan) const {
  for (const auto& [other_path, unit] : units_) {
    if (other_path == path) continue;
    for (const plan::Metric& m : plan.metrics)
      for (const plan::Metric& o : unit->plan().metrics)
        if (m.name == o.name) return "metric " + m.name + " is also declared in " + other_path;
  }
  return std::nullopt;
}

void Session::request_reload(bool asked) {
  if (compiling_.valid()) {  // once this one is applied
    reload_again_ = true;
    reload_again_asked_ = reload_again_asked_ || asked;
    return;
  }
  std::map<std::string, std::string> running;
  for (const auto& [path, unit] : units_) running[path] = unit->build().hash;
  std::vector<std::string> unlisted;
  std::map<std::string, std::string> on_disk = hash_rule_files(options_.rule_paths, &unlisted);
  for (const std::string& dir : unlisted)
    notice(Notice{plan::Severity::Warning,
                  notice_id(NoticeKind::ReloadIncomplete),
                  "cannot list " + dir + " whole; its rule files keep running as they are",
                  {},
                  0});
  keep_unlisted(running, unlisted, on_disk);
  for (const std::string& module : options_.module_files) on_disk.erase(module);
  ReloadPlan plan = plan_reload(running, failed_, on_disk);
  for (const std::string& path : plan.unchanged)
    if (running.count(path) && running[path] == on_disk[path]) failed_.erase(path);  // back to what runs
  for (const std::string& path : plan.remove) failed_.erase(path);
  std::erase_if(failed_, [&](const auto& entry) { return !on_disk.count(entry.first); });
  reload_ = {asked, plan.unchanged.size(), plan.remove.size()};
  int64_t removing = now_ms();
  for (const std::string& path : plan.remove) {
    auto it = units_.find(path);
    std::unique_ptr<RuleUnit> gone = std::move(it->second);
    units_.erase(it);
    units_changed();
    retire(std::move(gone));
  }
  reload_.paused_ms = now_ms() - removing;
  if (plan.compile.empty()) return apply_reload({});
  // Compile on a worker: the loop keeps reading every ring meanwhile.
  compiling_ = std::async(std::launch::async, [compile = options_.compile_unit, files = plan.compile] {
    CompileBatch batch;
    for (const std::string& file : files)
      batch.emplace_back(
          file, compile ? compile(file) : UnitCompileResult{nullptr, "", "", file + ": cannot compile"});
    return batch;
  });
}

void Session::reload_failed(const std::string& path, const std::string& hash, const std::string& message,
                            const std::string& diagnostics) {
  ++reload_errors_;
  failed_[path] = hash;
  std::cerr << "seam run: reload of " << path << " failed; its previous version keeps running\n";
  if (!diagnostics.empty()) std::cerr << diagnostics;
  // A unit that printed diagnostics is reported by one of their lines (cli/compile_unit.cpp).
  if (!message.empty() && diagnostics.empty()) std::cerr << message << "\n";
  notice(Notice{plan::Severity::Error,
                notice_id(NoticeKind::ReloadFailed),
                message + (units_.count(path) ? " (the previous version keeps running)" : ""),
                {},
                1});
}

void Session::retire(std::unique_ptr<RuleUnit> unit) {
  unit->stop();
  retired_records_ += unit->records();
  retired_dropped_ += unit->dropped();
}

// The new unit of a file starts (attached) before the old one stops: for a moment both fire,
// and no call goes unseen.
void Session::apply_reload(CompileBatch&& batch) {
  int64_t applying = now_ms();
  size_t compiled = 0, failed = 0;
  std::vector<std::unique_ptr<RuleUnit>> replaced;
  for (auto& [path, compiled_unit] : batch) {
    if (!compiled_unit.build) {
      ++failed;
      reload_failed(path, compiled_unit.hash, compiled_unit.error, compiled_unit.diagnostics);
      continue;
    }
    if (!compiled_unit.diagnostics.empty()) std::cerr << compiled_unit.diagnostics;  // warnings
    std::string hash = compiled_unit.build->hash;
    if (auto clash = conflict(path, compiled_unit.build->plan)) {
      ++failed;
      reload_failed(path, hash, path + ": " + *clash, "");
      conflicted_.insert(path);
      continue;
    }
    std::string error;
    std::unique_ptr<RuleUnit> unit = RuleUnit::start(std::move(compiled_unit.build), context_, &error);
    if (!unit) {
      ++failed;
      reload_failed(path, hash, path + ": " + error, "");
      continue;
    }
    ++compiled;
    failed_.erase(path);
    auto& slot = units_[path];
    if (slot) replaced.push_back(std::move(slot));
    slot = std::move(unit);
  }
  if (compiled > 0) units_changed();
  for (auto& old : replaced) retire(std::move(old));
  if (compiled > 0 || reload_.removed > 0) {
    ++reloads_;
    last_reload_s_ = unix_now_s();
    // A file refused for a name another file declared may load now that the others changed.
    for (const std::string& path : conflicted_)
      if (failed_.erase(path)) reload_again_ = true;
    conflicted_.clear();
  }
  if (reload_.asked || compiled > 0 || failed > 0 || reload_.removed > 0)
    notice(Notice{plan::Severity::Info,
                  notice_id(NoticeKind::Reloaded),
                  "reload: " + std::to_string(compiled) + " compiled, " + std::to_string(failed) +
                      " failed, " + std::to_string(reload_.unchanged) + " unchanged, " +
                      std::to_string(reload_.removed) + " removed (reading paused " +
                      std::to_string(reload_.paused_ms + now_ms() - applying) + " ms)",
                  {},
                  compiled});
  for (auto& [path, unit] : units_) unit->flush();
  if (reload_again_) {
    bool asked = reload_again_asked_;
    reload_again_ = reload_again_asked_ = false;
    request_reload(asked);
  }
}

}  // namespace seam::runtime::session_detail
