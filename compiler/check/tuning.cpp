#include "compiler/check/tuning.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/check/suggest.hpp"
#include "compiler/check/tuning_text.hpp"

namespace seam::check {

using diag::Code;

namespace {

struct Target {
  ast::RuleDecl* rule = nullptr;
  ast::File* file = nullptr;
  std::vector<std::string> tuned_by;
  std::optional<std::string> where_text;      // set when an override changed the condition
  std::map<std::string, SourceRange> set_by;  // clause -> the override that set it (E0204)
};

// One level of enable/disable toggles: rule name -> (enable, who said so).
struct Verdict {
  bool enable = false;
  std::string by;
  SourceRange range;
};
using Level = std::map<std::string, Verdict>;

std::string where_is(const SourceRange& r) {
  if (!r.valid()) return "?";
  return r.file->shown() + ":" + std::to_string(r.file->line_col(r.begin).line);
}

// The constant of `X > C` / `X >= C` (or `C < X`, `C <= X`) among the top-level `and` terms of a
// condition, where C has `unit`: the rule's threshold.
ast::Expr* find_threshold(ast::Expr* e, ast::Unit unit) {
  if (!e) return nullptr;
  auto* b = std::get_if<ast::Binary>(&e->node);
  if (!b) return nullptr;
  if (b->op == ast::BinaryOp::And) {
    if (ast::Expr* found = find_threshold(b->lhs.get(), unit)) return found;
    return find_threshold(b->rhs.get(), unit);
  }
  auto is_constant = [&](const ast::ExprPtr& side) {
    const auto* lit = std::get_if<ast::IntLit>(&side->node);
    return lit && lit->unit == unit;
  };
  if ((b->op == ast::BinaryOp::Gt || b->op == ast::BinaryOp::Ge) && is_constant(b->rhs)) return b->rhs.get();
  if ((b->op == ast::BinaryOp::Lt || b->op == ast::BinaryOp::Le) && is_constant(b->lhs)) return b->lhs.get();
  return nullptr;
}

ast::ExprPtr join_and(ast::ExprPtr a, ast::ExprPtr b) {
  if (!a) return b;
  auto e = std::make_unique<ast::Expr>();
  e->range = b->range;
  e->node = ast::Binary{ast::BinaryOp::And, std::move(a), std::move(b)};
  return e;
}

ast::ExprPtr negate(ast::ExprPtr inner) {
  auto e = std::make_unique<ast::Expr>();
  e->range = inner->range;
  e->node = ast::Unary{ast::UnaryOp::Not, std::move(inner)};
  return e;
}

class Tuner {
 public:
  explicit Tuner(Program& p) : program_(p), diags_(p.diagnostics) {}

  void run() {
    for (ast::File& f : program_.rule_files)
      for (ast::Decl& d : f.decls)
        if (auto* r = std::get_if<ast::RuleDecl>(&d); r && !r->name.name.empty()) {
          targets_.push_back(Target{r, &f, {}, {}, {}});
          for (const ast::Ident& t : r->tags) tags_.insert(t.name);
        }
    // Overrides may add tags, so they come before the tag toggles.
    for (ast::File& f : program_.rule_files)
      for (ast::Decl& d : f.decls)
        if (auto* o = std::get_if<ast::OverrideDecl>(&d)) apply_override(*o);
    for (ast::File& f : program_.rule_files)
      for (ast::Decl& d : f.decls)
        if (auto* t = std::get_if<ast::ToggleDecl>(&d))
          for (const ast::Ident& name : t->names)
            toggle(t->by_tag ? file_tags_ : file_rules_, t->by_tag, name.name, t->enable, where_is(t->range),
                   name.range);
    for (const RuleToggle& t : program_.toggles)
      toggle(t.by_tag ? cli_tags_ : cli_rules_, t.by_tag, t.name, t.enable,
             std::string(t.enable ? "--enable " : "--disable ") + (t.by_tag ? "tag:" : "") + t.name, {});
    finish();
  }

 private:
  std::vector<Target*> named(const std::string& name) {
    std::vector<Target*> out;
    for (Target& t : targets_)
      if (t.rule->name.name == name) out.push_back(&t);
    return out;
  }

  std::vector<std::string> rule_names() const {
    std::vector<std::string> names;
    for (const Target& t : targets_) names.push_back(t.rule->name.name);
    return names;
  }

  diag::Diagnostic& error_at(Code code, const SourceRange& r, const std::string& who, std::string message) {
    if (r.valid()) return diags_.error(code, r, std::move(message));
    return diags_.file_error(code, who, std::move(message));
  }

  void unknown(bool by_tag, const std::string& name, const SourceRange& r, const std::string& who) {
    diag::Diagnostic& d =
        error_at(Code::UnknownOverrideTarget, r, who,
                 by_tag ? "no rule is tagged '" + name + "'" : "no rule is named '" + name + "'");
    std::vector<std::string> known =
        by_tag ? std::vector<std::string>(tags_.begin(), tags_.end()) : rule_names();
    if (auto best = closest(name, known)) d.hints.push_back("did you mean " + *best + "?");
  }

  // A clause two overrides both set: E0204 at the second.
  bool claim(Target& t, const std::string& clause, const SourceRange& r) {
    auto [it, inserted] = t.set_by.emplace(clause, r);
    if (inserted) return true;
    diags_
        .error(Code::ConflictingOverride, r,
               "rule '" + t.rule->name.name + "' has its " + clause + " set by two overrides")
        .hints.push_back("the other is at " + where_is(it->second) + "; keep one");
    return false;
  }

  void apply_override(ast::OverrideDecl& o) {
    std::vector<Target*> found = named(o.rule.name);
    if (found.empty()) {
      unknown(false, o.rule.name, o.rule.range, "");
      return;
    }
    std::string who = where_is(o.range);
    for (size_t i = 0; i < found.size(); ++i) {
      Target& t = *found[i];
      ast::RuleDecl& r = *t.rule;
      bool last = i + 1 == found.size();  // expressions move into the last rule of that name
      t.tuned_by.push_back(who);
      if (o.where && claim(t, "condition", o.where->range) && last) {
        t.where_text = squash(o.where->range.text());
        r.where = std::move(o.where);
      }
      if (o.threshold && claim(t, "threshold", o.threshold->range)) set_threshold(t, *o.threshold);
      if (o.alert && claim(t, "alert", o.alert->range)) {
        if (!r.alert) r.alert = ast::Alert{};
        if (o.alert->severity) {
          r.alert->severity = o.alert->severity;
          r.alert->severity_word = o.alert->severity_word;
        } else if (!o.alert->severity_word.name.empty()) {
          r.alert->severity = std::nullopt;  // an unknown word: the checker reports it
          r.alert->severity_word = o.alert->severity_word;
        }
        if (!o.alert->message.empty()) {
          r.alert->message = o.alert->message;
          r.alert->message_range = o.alert->message_range;
        }
      }
      if (o.limit && claim(t, "limit", o.limit->range)) r.limit = o.limit;
      for (const ast::Ident& tag : o.tags) {
        r.tags.push_back(tag);
        tags_.insert(tag.name);
      }
      if (last)
        for (ast::ExprPtr& e : o.excepts) r.excepts.push_back(std::move(e));
      if (o.enabled) toggle(file_rules_, false, o.rule.name, *o.enabled, who, *o.enabled_range);
    }
  }

  void set_threshold(Target& t, const ast::Expr& value) {
    const auto* lit = std::get_if<ast::IntLit>(&value.node);
    ast::Expr* current = lit ? find_threshold(t.rule->where.get(), lit->unit) : nullptr;
    if (!lit || lit->unit == ast::Unit::None || !current) {
      diags_
          .error(Code::BadOverride, value.range,
                 "rule '" + t.rule->name.name + "' has no " +
                     (lit && lit->unit == ast::Unit::Bytes ? "size" : "duration") +
                     " threshold (a `where` term such as `duration > 1ms`) to change")
          .hints.push_back("give a time or size with its unit, or replace the condition with `where ...`");
      return;
    }
    std::string where = t.where_text ? *t.where_text : std::string(t.rule->where->range.text());
    if (!t.where_text && current->range.file == t.rule->where->range.file) {
      const SourceRange& w = t.rule->where->range;
      where = std::string(w.file->text().substr(w.begin, current->range.begin - w.begin)) +
              std::string(value.range.text()) +
              std::string(w.file->text().substr(current->range.end, w.end - current->range.end));
    }
    t.where_text = squash(where);
    current->node = *lit;
    current->range = value.range;
  }

  void toggle(Level& level, bool by_tag, const std::string& name, bool enable, const std::string& who,
              const SourceRange& r) {
    std::vector<Target*> found;
    for (Target& t : targets_) {
      bool match = !by_tag ? t.rule->name.name == name
                           : std::any_of(t.rule->tags.begin(), t.rule->tags.end(),
                                         [&](const ast::Ident& tag) { return tag.name == name; });
      if (match) found.push_back(&t);
    }
    if (found.empty()) {
      unknown(by_tag, name, r, who);
      return;
    }
    for (Target* t : found) {
      auto [it, inserted] = level.emplace(t->rule->name.name, Verdict{enable, who, r});
      if (!inserted && it->second.enable != enable) {
        error_at(Code::ConflictingOverride, r, who,
                 "rule '" + t->rule->name.name + "' is both enabled and disabled")
            .hints.push_back(
                std::string(enable ? "disabled" : "enabled") + " by " + it->second.by +
                "; remove one (a rule's own name outranks its tags, the command line outranks files)");
      }
    }
  }

  void finish() {
    std::set<const ast::RuleDecl*> disabled;
    for (Target& t : targets_) {
      bool enabled = true;
      std::string by;
      for (const Level* level : {&file_tags_, &file_rules_, &cli_tags_, &cli_rules_})
        if (auto it = level->find(t.rule->name.name); it != level->end()) {
          enabled = it->second.enable;
          by = it->second.by;
          t.tuned_by.push_back(by);
        }
      if (!t.tuned_by.empty()) program_.tuned.push_back(describe(t, !enabled, by));
      if (!enabled) disabled.insert(t.rule);
      // `except E` is `and not (E)`: the exceptions join the condition.
      for (ast::ExprPtr& e : t.rule->excepts)
        t.rule->where = join_and(std::move(t.rule->where), negate(std::move(e)));
      t.rule->excepts.clear();
    }
    for (ast::File& f : program_.rule_files) {
      size_t before = f.decls.size();
      std::erase_if(f.decls, [&](const ast::Decl& d) {
        const auto* r = std::get_if<ast::RuleDecl>(&d);
        return r && disabled.count(r);
      });
      if (f.decls.size() != before && f.source) program_.trimmed_files.push_back(f.source->path());
    }
  }

  TunedRule describe(const Target& t, bool is_disabled, const std::string& by) {
    TunedRule out;
    const ast::RuleDecl& r = *t.rule;
    out.rule = r.name.name;
    out.declared_at = where_is(r.name.range);
    out.disabled = is_disabled;
    out.disabled_by = is_disabled ? by : "";
    out.clauses = effective_clauses(r, t.where_text);
    std::vector<std::string> seen;
    for (const std::string& w : t.tuned_by)
      if (std::find(seen.begin(), seen.end(), w) == seen.end()) seen.push_back(w);
    out.tuned_by = seen;
    return out;
  }

  Program& program_;
  diag::Diagnostics& diags_;
  std::vector<Target> targets_;
  std::set<std::string> tags_;
  Level file_tags_, file_rules_, cli_tags_, cli_rules_;
};

}  // namespace

void apply_tuning(Program& program) {
  Tuner(program).run();
}

}  // namespace seam::check
