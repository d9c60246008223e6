#include "compiler/parse/trivia.hpp"

#include <vector>

namespace seam::parse {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

size_t line_start(std::string_view text, size_t at) {
  size_t nl = text.rfind('\n', at == 0 ? 0 : at - 1);
  if (at == 0 || nl == std::string_view::npos) return 0;
  return nl + 1;
}

std::string trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

size_t skip_trivia(std::string_view text, size_t at) {
  while (at < text.size()) {
    if (is_space(text[at])) {
      ++at;
    } else if (text[at] == '#') {
      while (at < text.size() && text[at] != '\n') ++at;
    } else {
      break;
    }
  }
  return at;
}

std::string doc_above(std::string_view text, size_t at) {
  std::vector<std::string> lines;
  size_t start = line_start(text, at);
  while (start > 0) {
    size_t prev = line_start(text, start - 1);
    std::string_view line = text.substr(prev, start - 1 - prev);
    size_t i = 0;
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i == line.size() || line[i] != '#') break;
    line.remove_prefix(i + 1);
    if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
    lines.emplace_back(line);
    start = prev;
  }
  std::string doc;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (!doc.empty()) doc += '\n';
    doc += *it;
  }
  return doc;
}

std::string trailing_comment(std::string_view text, size_t at) {
  size_t end = text.find('\n', at);
  if (end == std::string_view::npos) end = text.size();
  size_t hash = text.substr(at, end - at).find('#');
  if (hash == std::string_view::npos) return {};
  return trim(text.substr(at + hash + 1, end - at - hash - 1));
}

bool same_line(std::string_view text, size_t a, size_t b) {
  if (a > b) std::swap(a, b);
  return text.substr(a, b - a).find('\n') == std::string_view::npos;
}

}  // namespace seam::parse
