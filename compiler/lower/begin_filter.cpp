#include "compiler/lower/begin_filter.hpp"

#include <optional>
#include <set>
#include <string>

#include "compiler/lower/lowerer.hpp"
#include "compiler/plan/cond_text.hpp"

namespace seam::lower {

namespace {

// `v` as the begin reads it, or nullopt when the begin cannot know it.
std::optional<plan::Value> value_at_begin(const plan::Value& v, const plan::Span& span, bool keyed) {
  switch (v.kind) {
    case plan::ValueKind::Const:
    case plan::ValueKind::StrConst:
      return v;
    case plan::ValueKind::Saved: {  // read at the begin into the span's slot
      if (v.index < 0 || static_cast<size_t>(v.index) >= span.saves.size()) return std::nullopt;
      plan::Value saved = span.saves[static_cast<size_t>(v.index)];
      if (saved.kind == plan::ValueKind::Time) return std::nullopt;  // `now`, read after the filter
      saved.type = v.type;
      return saved;
    }
    case plan::ValueKind::Pid:
    case plan::ValueKind::Tid:
    case plan::ValueKind::Uid:
    case plan::ValueKind::Cgroup:
    case plan::ValueKind::Comm:
      if (keyed) return std::nullopt;  // the ending thread's, not the beginning one's
      return v;
    case plan::ValueKind::BeginThread: {  // the thread that began a keyed pair: the current one there
      plan::Value now = v;
      now.index = 0;
      if (v.name == "pid")
        now.kind = plan::ValueKind::Pid;
      else if (v.name == "tid")
        now.kind = plan::ValueKind::Tid;
      else if (v.name == "cgroup")
        now.kind = plan::ValueKind::Cgroup;
      else if (v.name == "comm")
        now.kind = plan::ValueKind::Comm;
      else
        return std::nullopt;
      now.name.clear();
      return now;
    }
    case plan::ValueKind::Arith:
    case plan::ValueKind::Table: {
      plan::Value out = v;
      for (plan::Value& operand : out.operands) {
        std::optional<plan::Value> at = value_at_begin(operand, span, keyed);
        if (!at) return std::nullopt;
        operand = std::move(*at);
      }
      return out;
    }
    default:  // Arg, Ret and TpField read at the end site; duration, cpu, time, correlations
      return std::nullopt;
  }
}

std::optional<plan::Cond> cond_at_begin(const plan::Cond& c, const plan::Span& span, bool keyed) {
  plan::Cond out = c;
  switch (c.op) {
    case plan::CondOp::True:
      return out;
    case plan::CondOp::Not:
    case plan::CondOp::And:
    case plan::CondOp::Or:
      for (plan::Cond& kid : out.kids) {
        std::optional<plan::Cond> at = cond_at_begin(kid, span, keyed);
        if (!at) return std::nullopt;
        kid = std::move(*at);
      }
      return out;
    case plan::CondOp::Eq:
    case plan::CondOp::Ne:
    case plan::CondOp::Lt:
    case plan::CondOp::Le:
    case plan::CondOp::Gt:
    case plan::CondOp::Ge:
    case plan::CondOp::StrEq:
    case plan::CondOp::StrPrefix:
    case plan::CondOp::IdentityHas: {
      std::optional<plan::Value> lhs = value_at_begin(c.lhs, span, keyed);
      if (!lhs) return std::nullopt;
      out.lhs = std::move(*lhs);
      if (c.op != plan::CondOp::IdentityHas) {
        std::optional<plan::Value> rhs = value_at_begin(c.rhs, span, keyed);
        if (!rhs) return std::nullopt;
        out.rhs = std::move(*rhs);
      }
      return out;
    }
    default:  // states and correlations change until the end; fd_is costs more than a store
      return std::nullopt;
  }
}

void conjuncts(const plan::Cond& c, std::vector<const plan::Cond*>& out) {
  if (c.op == plan::CondOp::And) {
    for (const plan::Cond& kid : c.kids) conjuncts(kid, out);
    return;
  }
  if (c.op != plan::CondOp::True) out.push_back(&c);
}

plan::Cond either(plan::Cond a, plan::Cond b) {
  plan::Cond c;
  c.op = plan::CondOp::Or;
  c.kids.push_back(std::move(a));
  c.kids.push_back(std::move(b));
  return c;
}

}  // namespace

plan::Cond begin_part(const plan::Cond& when, const plan::Span& span, bool keyed) {
  std::vector<const plan::Cond*> parts;
  conjuncts(when, parts);
  std::vector<plan::Cond> known;
  for (const plan::Cond* part : parts)
    if (std::optional<plan::Cond> at = cond_at_begin(*part, span, keyed)) known.push_back(std::move(*at));
  return all_of(std::move(known));
}

void place_begin_filters(plan::Program& program, const std::vector<bool>& keyed) {
  for (size_t i = 0; i < program.spans.size(); ++i) {
    plan::Span& span = program.spans[i];
    bool is_keyed = i < keyed.size() && keyed[i];
    std::vector<plan::Cond> readers;
    std::set<uint32_t> rules_seen;  // a span with several end sites has each reader at each
    std::set<int> metrics_seen;
    bool always = false;
    for (const plan::Rule& r : program.plan.rules)  // `pending` scans the spans in flight
      always |= !r.pending_map.empty() && r.pending_map == span.map;
    for (const plan::Site& site : program.sites)
      for (const plan::Action& a : site.actions) {
        if (a.kind != plan::ActionKind::SpanEnd || a.index != static_cast<int>(i)) continue;
        always |= !a.marks.empty();  // `after` marks every completion
        for (const plan::RuleCheck& r : a.rules)
          if (rules_seen.insert(r.rule_id).second) readers.push_back(begin_part(r.when, span, is_keyed));
        for (int m : a.metrics)
          if (metrics_seen.insert(m).second)
            readers.push_back(
                begin_part(program.metric_updates.at(static_cast<size_t>(m)).when, span, is_keyed));
      }
    span.never = !always && readers.empty();
    span.begin_when = plan::Cond{};
    for (const plan::Cond& r : readers) always |= r.op == plan::CondOp::True;
    if (!always && !readers.empty()) {
      std::set<std::string> seen;  // a metric and a rule often test the same: once is enough
      for (plan::Cond& r : readers) {
        if (!seen.insert(plan::cond_text(r)).second) continue;
        span.begin_when = seen.size() == 1 ? std::move(r) : either(std::move(span.begin_when), std::move(r));
      }
    }
    std::string text = span.name + (span.never ? " never (nothing reads it)"
                                    : span.begin_when.op == plan::CondOp::True
                                        ? " always"
                                        : " when " + plan::cond_text(span.begin_when));
    for (const plan::Site& site : program.sites)
      for (const plan::Action& a : site.actions)
        if (a.kind == plan::ActionKind::SpanBegin && a.index == static_cast<int>(i))
          program.plan.attachments.at(static_cast<size_t>(site.attachment)).span_begins.push_back(text);
  }
}

}  // namespace seam::lower
