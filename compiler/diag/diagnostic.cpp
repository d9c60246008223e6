#include "compiler/diag/diagnostic.hpp"

#include <algorithm>

namespace seam::diag {

namespace {
std::string path_of(const SourceRange& r) {
  return r.file ? r.file->shown() : std::string();
}
size_t count(const std::vector<Diagnostic>& items, Severity s) {
  return static_cast<size_t>(
      std::count_if(items.begin(), items.end(), [s](const Diagnostic& d) { return d.severity == s; }));
}
}  // namespace

Diagnostic& Diagnostics::add(Diagnostic d) {
  if (d.severity == Severity::Error) ++errors_;
  if (d.severity == Severity::Warning) ++warnings_;
  if (++kept_[d.path] > kMaxPerFile) {
    ++hidden_[d.path];
    overflow_ = std::move(d);
    return overflow_;
  }
  return items_.emplace_back(std::move(d));
}

Diagnostic& Diagnostics::error(Code code, const SourceRange& range, std::string message) {
  return add(Diagnostic{code, Severity::Error, std::move(message), range, path_of(range), {}});
}

Diagnostic& Diagnostics::warning(Code code, const SourceRange& range, std::string message) {
  return add(Diagnostic{code, Severity::Warning, std::move(message), range, path_of(range), {}});
}

Diagnostic& Diagnostics::file_error(Code code, std::string path, std::string message) {
  return add(Diagnostic{code, Severity::Error, std::move(message), {}, std::move(path), {}});
}

void Diagnostics::sort() {
  std::stable_sort(items_.begin(), items_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.path != b.path) return a.path < b.path;
    return a.range.begin < b.range.begin;
  });
}

void Diagnostics::append(const Diagnostics& other) {
  for (const Diagnostic& d : other.items_) add(d);
  for (const auto& [path, n] : other.hidden_) hidden_[path] += n;
  errors_ += other.errors_ - count(other.items_, Severity::Error);
  warnings_ += other.warnings_ - count(other.items_, Severity::Warning);
}

void Diagnostics::drop(Code code) {
  std::vector<Diagnostic> kept;
  errors_ -= count(items_, Severity::Error);  // what stays of the hidden ones is only counted
  warnings_ -= count(items_, Severity::Warning);
  for (Diagnostic& d : items_) {
    if (d.code == code) continue;
    if (d.severity == Severity::Error) ++errors_;
    if (d.severity == Severity::Warning) ++warnings_;
    kept.push_back(std::move(d));
  }
  items_ = std::move(kept);
}

}  // namespace seam::diag
