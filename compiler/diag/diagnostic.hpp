#pragma once
// Diagnostics are values: a code, a severity, a message, the exact source range, and hints.
// Passes append to a Diagnostics list and keep going; renderers (render.hpp) print them.
#include <map>
#include <string>
#include <vector>

#include "compiler/diag/codes.hpp"
#include "compiler/source/source_file.hpp"

namespace seam::diag {

enum class Severity { Error, Warning };

struct Diagnostic {
  Code code = Code::SyntaxError;
  Severity severity = Severity::Error;
  std::string message;
  SourceRange range;  // may be invalid for file-level problems; then only the path is shown
  std::string path;   // file path, always set (also when range is invalid)
  std::vector<std::string> hints;
};

// At most kMaxPerFile diagnostics are kept for one file: the rest are only counted (an error
// still makes has_errors() true), and renderers say how many were not shown. A 1 MiB file of
// garbage gives a hundred errors, not half a million.
class Diagnostics {
 public:
  static constexpr size_t kMaxPerFile = 100;

  Diagnostic& error(Code code, const SourceRange& range, std::string message);
  Diagnostic& warning(Code code, const SourceRange& range, std::string message);
  // For problems without a position (unreadable file, file too large).
  Diagnostic& file_error(Code code, std::string path, std::string message);

  const std::vector<Diagnostic>& all() const { return items_; }
  // path -> diagnostics past kMaxPerFile, not kept.
  const std::map<std::string, size_t>& hidden() const { return hidden_; }
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
  Diagnostic& add(Diagnostic d);

  std::vector<Diagnostic> items_;
  std::map<std::string, size_t> kept_;    // per path
  std::map<std::string, size_t> hidden_;  // per path
  Diagnostic overflow_;                   // what add() hands back for a diagnostic not kept
  size_t errors_ = 0;
  size_t warnings_ = 0;
};

}  // namespace seam::diag
