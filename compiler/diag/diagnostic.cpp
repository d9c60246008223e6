#include "compiler/diag/diagnostic.hpp"

#include <algorithm>

namespace seam::diag {

namespace {
std::string path_of(const SourceRange& r) { return r.file ? r.file->path() : std::string(); }
}  // namespace

Diagnostic& Diagnostics::error(Code code, const SourceRange& range, std::string message) {
  ++errors_;
  return items_.emplace_back(Diagnostic{code, Severity::Error, std::move(message), range, path_of(range), {}});
}

Diagnostic& Diagnostics::warning(Code code, const SourceRange& range, std::string message) {
  ++warnings_;
  return items_.emplace_back(
      Diagnostic{code, Severity::Warning, std::move(message), range, path_of(range), {}});
}

Diagnostic& Diagnostics::file_error(Code code, std::string path, std::string message) {
  ++errors_;
  return items_.emplace_back(Diagnostic{code, Severity::Error, std::move(message), {}, std::move(path), {}});
}

void Diagnostics::sort() {
  std::stable_sort(items_.begin(), items_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.path != b.path) return a.path < b.path;
    return a.range.begin < b.range.begin;
  });
}

void Diagnostics::append(const Diagnostics& other) {
  for (const Diagnostic& d : other.items_) {
    items_.push_back(d);
    if (d.severity == Severity::Error) ++errors_;
    if (d.severity == Severity::Warning) ++warnings_;
  }
}

void Diagnostics::drop(Code code) {
  std::vector<Diagnostic> kept;
  errors_ = warnings_ = 0;
  for (Diagnostic& d : items_) {
    if (d.code == code) continue;
    if (d.severity == Severity::Error) ++errors_;
    if (d.severity == Severity::Warning) ++warnings_;
    kept.push_back(std::move(d));
  }
  items_ = std::move(kept);
}

}  // namespace seam::diag
