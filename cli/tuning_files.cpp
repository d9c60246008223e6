#include "cli/tuning_files.hpp"

#include <filesystem>

namespace seam::cli {

TuningFiles tuning_files(const check::Program& program, const std::vector<std::string>& files) {
  TuningFiles out;
  std::error_code ec;
  for (const ast::File& f : program.rule_files) {
    bool tunes = false, runs = false;
    for (const ast::Decl& d : f.decls) {
      tunes =
          tunes || std::holds_alternative<ast::OverrideDecl>(d) || std::holds_alternative<ast::ToggleDecl>(d);
      runs = runs || std::holds_alternative<ast::RuleDecl>(d) || std::holds_alternative<ast::MetricDecl>(d);
    }
    if (!tunes) continue;
    auto canonical = std::filesystem::weakly_canonical(f.source->path(), ec);
    for (const std::string& file : files)
      if (std::filesystem::weakly_canonical(file, ec) == canonical) {
        out.all.push_back(file);
        // A file whose rules were all disabled still runs nothing of its own.
        if (!runs) out.tuning_only.push_back(file);
      }
  }
  return out;
}

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
