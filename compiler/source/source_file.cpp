#include "compiler/source/source_file.hpp"

#include <algorithm>

namespace seam {

SourceFile::SourceFile(std::string path, std::string text, std::string shown)
    : path_(std::move(path)), shown_(std::move(shown)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

SourceFile::LineCol SourceFile::line_col(size_t offset) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = static_cast<size_t>(it - line_starts_.begin());  // >= 1
  return {static_cast<uint32_t>(line), static_cast<uint32_t>(offset - line_starts_[line - 1] + 1)};
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
  std::string_view v(text_);
  v = v.substr(begin, end - begin);
  if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
  return v;
}

SourceRange SourceRange::join(const SourceRange& a, const SourceRange& b) {
  if (!a.valid()) return b;
  if (!b.valid()) return a;
  return {a.file, std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

}  // namespace seam
