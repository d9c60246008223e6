#include "runtime/output/alert_pipeline.hpp"

#include <time.h>

#include <cstdlib>
#include <string>
#include <variant>

namespace seam::runtime {
namespace {

int64_t monotonic_now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The process an alert is about: its pid, or (windowed rules, whose series are per process when
// the metric is `by pid`) its "pid" label; 0 when it has neither.
uint32_t alert_process(const Alert& alert) {
  if (alert.pid != 0) return alert.pid;
  for (const AlertField& f : alert.fields)
    if (f.name == "pid")
      if (const auto* text = std::get_if<std::string>(&f.value.v))
        return static_cast<uint32_t>(std::strtoul(text->c_str(), nullptr, 10));
  return 0;
}

}  // namespace

AlertPipeline::AlertPipeline(const plan::Plan& plan, std::vector<std::unique_ptr<Sink>> sinks,
                             PipelineOptions options)
    : decoder_(options.clock_offset_ns ? Decoder(plan, *options.clock_offset_ns) : Decoder(plan)),
      builder_(std::move(options.symbolizer), std::move(options.enum_namer), std::move(options.unwinder),
               std::move(options.py_namer)),
      sinks_(std::move(sinks)),
      clock_(std::move(options.clock)),
      identify_(std::move(options.identify)),
      first_rule_(plan.rules.data()) {
  rules_.reserve(plan.rules.size());
  for (const auto& rule : plan.rules)
    rules_.push_back(PerRule{&rule,
                             ProcessRateLimiter(rule.limit_count, rule.limit_per_ns, rule.limit_per_process),
                             {},
                             rule.group_ns > 0 ? std::make_unique<AlertGrouper>(rule.group_ns) : nullptr});
}

AlertPipeline::~AlertPipeline() {
  finish();
}

int64_t AlertPipeline::now() const {
  return clock_ ? clock_() : monotonic_now();
}

AlertPipeline::PerRule* AlertPipeline::per_rule(uint32_t rule_id) {
  const plan::Rule* rule = decoder_.find_rule(rule_id);
  return rule ? &rules_[rule - first_rule_] : nullptr;
}

const AlertPipeline::PerRule* AlertPipeline::per_rule(uint32_t rule_id) const {
  const plan::Rule* rule = decoder_.find_rule(rule_id);
  return rule ? &rules_[rule - first_rule_] : nullptr;
}

void AlertPipeline::on_record(std::span<const uint8_t> bytes) {
  if (auto error = decoder_.decode_into(bytes, record_)) return count_decode_error(bytes, *error);
  PerRule& r = rules_[record_.rule - first_rule_];
  ++r.stats.decoded;
  const int64_t t = now();
  AlertGrouper::Admission group;
  uint64_t key = 0;
  if (r.grouper) {
    key = AlertGrouper::key(record_);
    group = r.grouper->admit(key, t, record_.wall_ns, summaries_);
    write_summaries(r);
    if (!group.write) {
      ++r.stats.suppressed;
      return;
    }
  }
  RateLimiter::Admission admission = r.limiter.admit(record_.pid, t);
  report_overflow(r);
  if (!admission.write && !group.grouped) {
    ++r.stats.suppressed;
    return;
  }
  // Symbolizes: only for alerts that will be written, or kept for a group's summary.
  builder_.build(record_, admission.suppressed, alert_);
  alert_.count = r.grouper ? 1 : 0;
  if (group.grouped) r.grouper->opened(key, alert_);
  if (!admission.write) {
    ++r.stats.suppressed;
    return;
  }
  ++r.stats.written;
  emit(alert_);
}

void AlertPipeline::write_alert(uint32_t rule_id, Alert& alert) {
  PerRule* r = per_rule(rule_id);
  if (!r) return emit(alert);
  if (!alert.status.empty()) {  // a windowed state: sent on its changes and re-sends, never held back
    ++r->stats.written;
    return emit(alert);
  }
  const int64_t t = now();
  AlertGrouper::Admission group;
  uint64_t key = 0;
  alert.count = r->grouper ? 1 : 0;
  if (r->grouper) {
    key = AlertGrouper::key(alert);
    group = r->grouper->admit(key, t, alert.time_ns, summaries_);
    write_summaries(*r);
    if (!group.write) {
      ++r->stats.suppressed;
      return;
    }
    if (group.grouped) r->grouper->opened(key, alert);
  }
  RateLimiter::Admission admission = r->limiter.admit(alert_process(alert), t);
  report_overflow(*r);
  if (!admission.write) {
    ++r->stats.suppressed;
    return;
  }
  alert.suppressed = admission.suppressed;
  ++r->stats.written;
  emit(alert);
}

void AlertPipeline::emit(Alert& alert) {
  if (identify_ && alert.cgroup != 0) identify_(alert);
  for (auto& sink : sinks_) sink->write(alert);
}

void AlertPipeline::notice(const Notice& n) {
  for (auto& sink : sinks_) sink->write_notice(n);
}

void AlertPipeline::count_decode_error(std::span<const uint8_t> bytes, const Error& error) {
  std::optional<uint32_t> id = Decoder::peek_rule_id(bytes);
  PerRule* r = id ? per_rule(*id) : nullptr;
  bool first;
  if (r) {
    first = r->stats.decode_errors++ == 0;
  } else {
    first = !reported_unattributed_;
    reported_unattributed_ = true;
    ++unattributed_errors_;
  }
  if (!first) return;  // counted in stats; one notice per rule is enough to know
  Notice n{plan::Severity::Warning, notice_id(NoticeKind::DecodeError),
           (r ? "rule " + r->rule->name + ": " : std::string()) + error.message +
               " (further errors are only counted)",
           r ? std::optional<std::string>(r->rule->name) : std::nullopt, 0};
  notice(n);
}

void AlertPipeline::report_suppressed(PerRule& r, uint64_t count, uint32_t pid) {
  if (count == 0) return;
  Notice n{plan::Severity::Info, notice_id(NoticeKind::Suppressed),
           "rule " + r.rule->name + ": " + std::to_string(count) + " similar alert" +
               (count == 1 ? "" : "s") + (pid != 0 ? " from pid " + std::to_string(pid) : std::string()) +
               " suppressed by its limit",
           r.rule->name, count};
  notice(n);
}

void AlertPipeline::flush_suppressed(bool all) {
  const int64_t t = all ? 0 : now();
  for (auto& r : rules_)
    r.limiter.take_suppressed(t, all,
                              [&](uint32_t pid, uint64_t count) { report_suppressed(r, count, pid); });
}

void AlertPipeline::report_overflow(PerRule& r) {
  if (!r.limiter.take_overflow()) return;
  notice(Notice{plan::Severity::Warning, notice_id(NoticeKind::LimitOverflow),
                "rule " + r.rule->name + ": more than " + std::to_string(r.limiter.max_processes()) +
                    " processes limited at once; further processes share the rule-wide limit",
                r.rule->name, 0});
}

void AlertPipeline::write_summaries(PerRule& r) {
  for (Alert& s : summaries_) {
    ++r.stats.written;
    emit(s);
  }
  summaries_.clear();
}

void AlertPipeline::flush_groups(bool all) {
  const int64_t t = all ? 0 : now();
  for (auto& r : rules_)
    if (r.grouper) {
      r.grouper->take_ended(t, all, summaries_);
      write_summaries(r);
    }
}

void AlertPipeline::flush() {
  flush_groups(false);
  flush_suppressed(false);
  for (auto& sink : sinks_) sink->flush();
}

void AlertPipeline::finish() {
  if (finished_) return;
  finished_ = true;
  flush_groups(true);
  flush_suppressed(true);
  for (auto& sink : sinks_) sink->flush();
}

RuleStats AlertPipeline::stats(uint32_t rule_id) const {
  const PerRule* r = per_rule(rule_id);
  return r ? r->stats : RuleStats{};
}

}  // namespace seam::runtime
