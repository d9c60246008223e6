#include "cli/rule_toggles.hpp"

#include <CLI/CLI.hpp>
#include <ostream>

namespace seam::cli {

namespace {

check::RuleToggle parse_toggle(const std::string& text, bool enable) {
  check::RuleToggle t;
  t.enable = enable;
  t.by_tag = text.rfind("tag:", 0) == 0;
  t.name = t.by_tag ? text.substr(4) : text;
  return t;
}

}  // namespace

std::vector<check::RuleToggle> ToggleFlags::toggles() const {
  std::vector<check::RuleToggle> out;
  for (const std::string& d : disable) out.push_back(parse_toggle(d, false));
  for (const std::string& e : enable) out.push_back(parse_toggle(e, true));
  return out;
}

void add_toggle_flags(CLI::App& app, ToggleFlags& flags) {
  app.add_option("--disable", flags.disable,
                 "Do not run this rule, or the rules tagged T with tag:T (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--enable", flags.enable,
                 "Run this rule (or tag:T) even where a rule file disables it (repeatable)")
      ->allow_extra_args(false);
}

void print_tuned_rules(const std::vector<check::TunedRule>& tuned, std::ostream& out) {
  for (const check::TunedRule& t : tuned) {
    out << t.declared_at << ": rule " << t.rule;
    if (t.disabled)
      out << " is disabled by " << t.disabled_by << "\n";
    else {
      out << " as tuned by ";
      for (size_t i = 0; i < t.tuned_by.size(); ++i) out << (i ? ", " : "") << t.tuned_by[i];
      out << ":\n";
      for (const std::string& c : t.clauses) out << "    " << c << "\n";
    }
  }
}

}  // namespace seam::cli
