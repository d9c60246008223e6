// Reloads: whether the rule files changed, building the unit again on a worker, and swapping it
// in (the new object attached before the old one stops). See docs/operations.md.
#include <time.h>

#include <cerrno>
#include <cstring>

#include "runtime/load/features.hpp"
#include "runtime/run/reloader.hpp"
#include "runtime/run/session_state.hpp"

namespace seam::runtime::session_detail {

namespace {

double unix_now_s() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

bool same_layout(const plan::Metric& a, const plan::Metric& b) {
  if (a.kind != b.kind || a.unit != b.unit || a.key_size != b.key_size || a.value_size != b.value_size ||
      a.per_cpu != b.per_cpu || a.max_series != b.max_series || a.labels.size() != b.labels.size())
    return false;
  for (size_t i = 0; i < a.labels.size(); ++i) {
    const plan::MetricLabel &x = a.labels[i], &y = b.labels[i];
    if (x.name != y.name || x.type != y.type || x.offset != y.offset || x.size != y.size) return false;
  }
  return true;
}

}  // namespace

// A metric the running unit has, with the same name and layout, keeps its map across a reload
// (the new object uses it by fd): its counters go on, however many files changed. So does an
// in-flight map (span, state, `after`) whose name, sizes and contents are the same: a span begun
// under the old object is ended by the new one.
std::map<std::string, int> Session::reusable_maps(const plan::Plan& next) const {
  std::map<std::string, int> out;
  const RuleUnit* unit = units_.running();
  if (!unit) return out;
  for (const plan::Metric& m : next.metrics)
    for (const plan::Metric& old : unit->plan().metrics)
      if (old.name == m.name && same_layout(old, m))
        if (int fd = unit->map_fd(old.map); fd >= 0) out[m.map] = fd;
  for (const plan::Map& m : next.maps)
    for (const plan::Map& old : unit->plan().maps)
      if (!m.contents.empty() && old.name == m.name && old.type == m.type && old.key_size == m.key_size &&
          old.value_size == m.value_size && old.max_entries == m.max_entries && old.contents == m.contents)
        if (int fd = unit->map_fd(old.name); fd >= 0) out[m.name] = fd;
  return out;
}

// What a hand-over does to the kernel and to the session (unit_handover.hpp).
UnitHandover<RuleUnit>::Steps Session::handover_steps() {
  UnitHandover<RuleUnit>::Steps steps;
  steps.start = [this](std::unique_ptr<UnitBuild> build) { return start_next(std::move(build)); };
  steps.flip = [this]() -> Result<void> {
    if (live_ && !live_->flip(live_->next())) return Error{std::strerror(errno)};
    return {};
  };
  steps.changed = [this] { unit_changed(); };
  steps.retire = [this](std::unique_ptr<RuleUnit> unit) { retire(std::move(unit)); };
  steps.failed = [this](const std::string& message, const std::string& diagnostics) {
    reload_failed(message, diagnostics);
  };
  return steps;
}

// The next unit: loaded in the next generation (attached, it does nothing until the flip), with
// the running unit's maps it can keep.
Result<std::unique_ptr<RuleUnit>> Session::start_next(std::unique_ptr<UnitBuild> build) {
  const plan::Plan& plan = build->plan;
  uint32_t tag = new_tag();
  RingShare next = share(plan, tag, live_ ? live_->next() : 1);
  next.reuse_maps = reusable_maps(plan);
  LoadResult loaded = LoadedObject::load(build->object, plan, probe_features(), next);
  return RuleUnit::start(std::move(build), std::move(loaded), tag, services_);
}

void Session::request_reload(bool asked) {
  if (compiling_.valid()) {  // once this one is applied
    reload_again_ = true;
    reload_again_asked_ = reload_again_asked_ || asked;
    return;
  }
  const RuleUnit* running = units_.running();
  ReloadDecision decision =
      reloader_.decide(running ? running->build().files : std::map<std::string, std::string>{});
  for (const std::string& dir : decision.unlisted)
    notice(Notice{plan::Severity::Warning,
                  notice_id(NoticeKind::ReloadIncomplete),
                  "cannot list " + dir + " whole; its rule files keep running as they are",
                  {},
                  0});
  reload_ = {asked, decision, reloader_.on_disk(), 0};
  if (!decision.changed()) return reload_done(false, false, now_ms());
  if (decision.files == 0) {  // every rule file is gone: nothing is left to build
    int64_t removing = now_ms();
    units_.stop();
    reloader_.started();
    reload_.paused_ms = now_ms() - removing;
    return reload_done(false, false, now_ms());
  }
  // Build on a worker: the loop keeps reading the ring meanwhile.
  compiling_ = std::async(std::launch::async, [compile = options_.compile_unit, name = unit_name_] {
    if (compile) return compile(name);
    UnitCompileResult none;
    none.error = name + ": cannot compile";
    return none;
  });
}

void Session::reload_failed(const std::string& message, const std::string& diagnostics) {
  ++reload_errors_;
  reloader_.failed(reload_.decision, reload_.on_disk);
  bool running = units_.running() != nullptr;
  if (options_.compiler_output) {
    std::string text = "seam run: reload of " + unit_name_ + " failed; " +
                       (running ? "the rules as they were keep running\n" : "nothing runs until it builds\n");
    // A unit that printed diagnostics is reported by one of their lines (cli/compile_driver.cpp).
    text += diagnostics.empty() && !message.empty() ? message + "\n" : diagnostics;
    options_.compiler_output(text);
  }
  notice(Notice{plan::Severity::Error,
                notice_id(NoticeKind::ReloadFailed),
                message + (running ? " (the previous version keeps running)" : ""),
                {},
                1});
}

namespace {
// How long a replaced unit keeps its entry-bound return probes (RuleUnit::linger): a call that
// entered under it and returns within this time after the reload is still ended, once.
constexpr int64_t kLingerMs = 10000;
}  // namespace

void Session::retire(std::unique_ptr<RuleUnit> unit) {
  if (unit->linger()) {
    lingering_.push_back({std::move(unit), now_ms() + kLingerMs});
    return;
  }
  finish(*unit);
}

size_t Session::finish(RuleUnit& unit) {
  size_t links = unit.stop().links;
  retired_records_ += unit.records();
  retired_dropped_ += unit.dropped();
  return links;
}

void Session::end_lingering(int64_t now, bool all) {
  for (auto it = lingering_.begin(); it != lingering_.end();) {
    if (all || now >= it->until_ms) {
      finish(*it->unit);
      it = lingering_.erase(it);
    } else {
      ++it;
    }
  }
}

// The compiled unit replaces the running one (unit_handover.hpp: the new object is attached
// before the old one stops, and one write to the live generation hands every probe over).
void Session::apply_reload(UnitCompileResult compiled) {
  int64_t applying = now_ms();
  if (compiled.build && !compiled.printed.empty() && options_.compiler_output)
    options_.compiler_output(compiled.printed);  // warnings
  bool built = units_.replace(unit_name_, std::move(compiled));
  if (built) reloader_.started();
  reload_done(built, !built, applying);
}

// The reload's notice, and the next reload if one was asked for meanwhile.
void Session::reload_done(bool built, bool failed, int64_t applying) {
  const ReloadDecision& d = reload_.decision;
  size_t removed = built || d.files == 0 ? d.remove.size() : 0;
  if (built || removed > 0) {
    ++reloads_;
    last_reload_s_ = unix_now_s();
  }
  // Counted in files: the whole set is built as one object, and these say what changed in it.
  size_t compiled = built ? d.compile.size() : 0, refused = failed ? d.compile.size() + d.remove.size() : 0;
  if (reload_.asked || built || failed || removed > 0)
    notice(Notice{plan::Severity::Info,
                  notice_id(NoticeKind::Reloaded),
                  "reload: " + std::to_string(compiled) + " compiled, " + std::to_string(refused) +
                      " failed, " + std::to_string(d.unchanged) + " unchanged, " + std::to_string(removed) +
                      " removed (reading paused " + std::to_string(reload_.paused_ms + now_ms() - applying) +
                      " ms)",
                  {},
                  compiled});
  if (RuleUnit* unit = units_.running()) unit->flush();
  if (reload_again_) {
    bool asked = reload_again_asked_;
    reload_again_ = reload_again_asked_ = false;
    request_reload(asked);
  }
}

}  // namespace seam::runtime::session_detail
