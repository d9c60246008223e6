#include "compiler/check/suggest.hpp"

#include <algorithm>

namespace seam::check {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest(std::string_view typed, const std::vector<Candidate>& candidates) {
  size_t limit = std::max<size_t>(1, (typed.size() + 2) / 3);
  std::optional<std::string> best;
  size_t best_distance = limit + 1;
  for (const Candidate& c : candidates) {
    size_t d = edit_distance(typed, c.compare);
    // A clipped word ("warn" for "warning") is a likely typo, however far it is by edits.
    if (typed.size() >= 3 && c.compare.size() > typed.size() &&
        c.compare.compare(0, typed.size(), typed) == 0)
      d = std::min(d, limit);
    if (d < best_distance) {
      best_distance = d;
      best = c.display;
    }
  }
  return best;
}

std::optional<std::string> closest(std::string_view typed, const std::vector<std::string>& names) {
  std::vector<Candidate> candidates;
  candidates.reserve(names.size());
  for (const std::string& n : names) candidates.push_back({n, n});
  return closest(typed, candidates);
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string s;
  for (const std::string& item : items) {
    if (!s.empty()) s += separator;
    s += item;
  }
  return s;
}

}  // namespace seam::check
