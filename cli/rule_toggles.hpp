#pragma once
// `--disable NAME|tag:T` and `--enable NAME|tag:T`, shared by `seam run` and `seam lint`.
#include <string>
#include <vector>

#include "compiler/check/program.hpp"

namespace CLI {
class App;
}

namespace seam::cli {

struct ToggleFlags {
  std::vector<std::string> disable;
  std::vector<std::string> enable;
  // In the order the checker applies them: all disables, then all enables (for the same rule
  // both is E0204).
  std::vector<check::RuleToggle> toggles() const;
};

void add_toggle_flags(CLI::App& app, ToggleFlags& flags);

// Prints each tuned rule's effective form ("rules/syscalls.seam:8: rule futex_wait_slow ...").
void print_tuned_rules(const std::vector<check::TunedRule>& tuned, std::ostream& out);

}  // namespace seam::cli
