#pragma once
// A rule or module file held in memory, and positions inside it. Every AST node and every
// diagnostic carries a SourceRange; line and column are computed only when printed.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace seam {

class SourceFile {
 public:
  // `shown`: what diagnostics, the plan and the generated C call the file, when not its path
  // (check::LoadOptions::shown_names).
  SourceFile(std::string path, std::string text, std::string shown = {});

  // Where the file is read from (its safety, its hash for reloads).
  const std::string& path() const { return path_; }
  // What an operator sees: the path, or for rule text given on the command line (`seam run -e`,
  // `-`) a name that is the same at every run, so that its generated C, and so its object, is too.
  const std::string& shown() const { return shown_.empty() ? path_ : shown_; }
  const std::string& text() const { return text_; }

  struct LineCol {
    uint32_t line;    // 1-based
    uint32_t column;  // 1-based, in bytes
  };
  LineCol line_col(size_t offset) const;
  // The text of the 1-based line, without its newline.
  std::string_view line_text(uint32_t line) const;

 private:
  std::string path_;
  std::string shown_;
  std::string text_;
  std::vector<size_t> line_starts_;
};

struct SourceRange {
  const SourceFile* file = nullptr;
  size_t begin = 0;  // byte offsets into file->text(), end exclusive
  size_t end = 0;

  bool valid() const { return file != nullptr; }
  std::string_view text() const {
    return file ? std::string_view(file->text()).substr(begin, end - begin) : std::string_view();
  }
  // The smallest range covering both.
  static SourceRange join(const SourceRange& a, const SourceRange& b);
};

}  // namespace seam
