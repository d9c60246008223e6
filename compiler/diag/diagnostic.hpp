#pragma once
// Diagnostics are values: a code, a severity, a message, the exact source range, and hints.
// Passes append to a Diagnostics list and keep going; renderers (render.hpp) print them.
#include <string>
#include <vector>

#include "compiler/diag/codes.hpp"
#include "compiler/source/source_file.hpp"

namespace seam::diag {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Code code;
  Severity severity;
  std::string message;
  SourceRange range;  // may be invalid for file-level problems; then only the path is shown
  std::string path;   // file path, always set (also when range is invalid)
  std::vector<std::string> hints;
};

class Diagnostics {
 public:
  Diagnostic& error(Code code, const SourceRange& range, std::string message);
  Diagnostic& warning(Code code, const SourceRange& range, std::string message);
  // For problems without a position (unreadable file, file too large).
  Diagnostic& file_error(Code code, std::string path, std::string message);

  const std::vector<Diagnostic>& all() const { return items_; }
  bool has_errors() const { return errors_ > 0; }
  size_t error_count() const { return errors_; }
  size_t warning_count() const { return warnings_; }
  // Stable sort by file, then position, so output follows the source order.
  void sort();
  void append(const Diagnostics& other);
  // Removes every diagnostic with `code` (seam run's per-file units leave cross-file checks to
  // the whole program).
  void drop(Code code);

 private:
  std::vector<Diagnostic> items_;
  size_t errors_ = 0;
  size_t warnings_ = 0;
};

}  // namespace seam::diag
