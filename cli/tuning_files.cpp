#include "cli/tuning_files.hpp"

namespace seam::cli {

bool has_rules(const check::Program& program) {
  for (const ast::File& f : program.rule_files)
    for (const ast::Decl& d : f.decls)
      if (std::holds_alternative<ast::RuleDecl>(d) || std::holds_alternative<ast::MetricDecl>(d)) return true;
  return false;
}

std::string join_paths(const std::vector<std::string>& paths) {
  std::string out;
  for (const std::string& p : paths) out += (out.empty() ? "" : " ") + p;
  return out;
}

}  // namespace seam::cli
