#include "compiler/check/tuning_text.hpp"

namespace seam::check {

std::string squash(std::string_view text) {
  std::string out;
  bool space = false, comment = false;
  for (char c : text) {
    if (comment) {
      if (c != '\n') continue;
      comment = false;
    }
    if (c == '#') {
      comment = true;
      space = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::vector<std::string> effective_clauses(const ast::RuleDecl& r,
                                           const std::optional<std::string>& where_text) {
  std::vector<std::string> out;
  if (r.event) out.push_back("on " + r.event->str());
  if (r.when) out.push_back("when " + squash(r.when->range.text()));
  if (where_text)
    out.push_back("where " + *where_text);
  else if (r.where)
    out.push_back("where " + squash(r.where->range.text()));
  if (r.while_) out.push_back("while " + squash(r.while_->range.text()));
  for (const ast::ExprPtr& e : r.excepts) out.push_back("except " + squash(e->range.text()));
  if (r.alert) {
    std::string a = "alert";
    if (!r.alert->severity_word.name.empty()) a += " " + r.alert->severity_word.name;
    if (r.alert->message_range.valid()) a += " " + std::string(r.alert->message_range.text());
    out.push_back(a);
  }
  if (r.limit) out.push_back(squash(r.limit->range.text()));
  if (!r.tags.empty()) {
    std::string t = "tags";
    for (size_t i = 0; i < r.tags.size(); ++i) t += (i ? ", " : " ") + r.tags[i].name;
    out.push_back(t);
  }
  return out;
}

}  // namespace seam::check
