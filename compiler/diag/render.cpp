#include "compiler/diag/render.hpp"

#include <algorithm>

namespace seam::diag {

namespace {

constexpr const char* kReset = "\x1b[0m";
constexpr const char* kBold = "\x1b[1m";
constexpr const char* kBlue = "\x1b[1;34m";

const char* severity_color(Severity s) {
  switch (s) {
    case Severity::Error:
      return "\x1b[1;31m";
    case Severity::Warning:
      return "\x1b[1;33m";
  }
  return "";
}

std::string plural(size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// The source line with its underline: carets start under the range's first byte and run to its
// end, or to the end of the line when the range spans several lines. Tabs in the line are kept
// in the padding so the caret lines up whatever the terminal's tab width.
void render_snippet(std::string& out, const Diagnostic& d, bool color) {
  const SourceFile& file = *d.range.file;
  SourceFile::LineCol start = file.line_col(d.range.begin);
  std::string_view line = file.line_text(start.line);
  std::string number = std::to_string(start.line);
  std::string gutter(number.size(), ' ');
  size_t col = std::min<size_t>(start.column - 1, line.size());
  size_t end = std::min(d.range.end, d.range.begin + (line.size() - col));
  // Trailing blanks inside a range carry no meaning; underline the text only.
  const std::string& text = file.text();
  while (end > d.range.begin + 1 && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  size_t width = end > d.range.begin ? end - d.range.begin : 1;

  std::string pad;
  for (size_t i = 0; i < col; ++i) pad += line[i] == '\t' ? '\t' : ' ';
  std::string marks = "^" + std::string(width - 1, '~');

  const char* blue = color ? kBlue : "";
  const char* reset = color ? kReset : "";
  out += "    " + std::string(blue) + number + " |" + reset + " " + std::string(line) + "\n";
  out += "    " + std::string(blue) + gutter + " |" + reset + " " + pad +
         (color ? severity_color(d.severity) : "") + marks + reset + "\n";
  for (const std::string& hint : d.hints)
    out += "    " + gutter + " " + std::string(blue) + "=" + reset + " hint: " + hint + "\n";
}

std::string location(const Diagnostic& d) {
  if (!d.range.valid()) return d.path;
  SourceFile::LineCol lc = d.range.file->line_col(d.range.begin);
  return d.path + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column);
}

// GitHub workflow commands: data escapes % CR LF; property values also escape ':' and ','.
std::string escape_data(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out += c;
  }
  return out;
}

std::string escape_property(std::string_view s) {
  std::string out;
  for (char c : escape_data(s)) {
    if (c == ':')
      out += "%3A";
    else if (c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

std::string joined_hints(const Diagnostic& d) {
  std::string s;
  for (const std::string& h : d.hints) s += (s.empty() ? "" : "; ") + h;
  return s;
}

}  // namespace

const char* to_string(Severity s) {
  switch (s) {
    case Severity::Error:
      return "error";
    case Severity::Warning:
      return "warning";
  }
  return "?";
}

std::string render_headline(const Diagnostic& d) {
  return location(d) + ": " + to_string(d.severity) + "[" + std::string(code_id(d.code)) + "]: " + d.message;
}

std::string render_text(const Diagnostics& diags, bool color) {
  std::string out;
  for (const Diagnostic& d : diags.all()) {
    out += color ? kBold : "";
    out += location(d) + ": ";
    out += color ? severity_color(d.severity) : "";
    out += std::string(to_string(d.severity)) + "[" + std::string(code_id(d.code)) + "]";
    out += color ? std::string(kReset) + kBold : "";
    out += ": " + d.message + (color ? kReset : "") + "\n";
    if (d.range.valid()) {
      render_snippet(out, d, color);
    } else {
      for (const std::string& hint : d.hints) out += "  = hint: " + hint + "\n";
    }
    out += "\n";
  }
  for (const auto& [path, n] : diags.hidden())
    out += path + ": note: " + plural(n, "more diagnostic") + " not shown (at most " +
           std::to_string(Diagnostics::kMaxPerFile) + " per file)\n\n";
  if (diags.error_count() + diags.warning_count() > 0)
    out += plural(diags.error_count(), "error") + ", " + plural(diags.warning_count(), "warning") + "\n";
  return out;
}

nlohmann::json render_json(const Diagnostics& diags) {
  nlohmann::json list = nlohmann::json::array();
  for (const Diagnostic& d : diags.all()) {
    nlohmann::json j;
    j["file"] = d.path;
    if (d.range.valid()) {
      SourceFile::LineCol b = d.range.file->line_col(d.range.begin);
      SourceFile::LineCol e = d.range.file->line_col(std::max(d.range.end, d.range.begin));
      j["line"] = b.line;
      j["column"] = b.column;
      j["end_line"] = e.line;
      j["end_column"] = e.column;
    } else {
      j["line"] = j["column"] = j["end_line"] = j["end_column"] = nullptr;
    }
    j["severity"] = to_string(d.severity);
    j["code"] = std::string(code_id(d.code));
    j["name"] = std::string(code_slug(d.code));
    j["message"] = d.message;
    j["hints"] = d.hints;
    list.push_back(std::move(j));
  }
  nlohmann::json out = {
      {"diagnostics", std::move(list)}, {"errors", diags.error_count()}, {"warnings", diags.warning_count()}};
  for (const auto& [path, n] : diags.hidden()) out["not_shown"][path] = n;  // only when some were
  return out;
}

std::string render_github(const Diagnostics& diags) {
  std::string out;
  for (const Diagnostic& d : diags.all()) {
    out += d.severity == Severity::Error     ? "::error "
           : d.severity == Severity::Warning ? "::warning "
                                             : "::notice ";
    out += "file=" + escape_property(d.path);
    if (d.range.valid()) {
      SourceFile::LineCol b = d.range.file->line_col(d.range.begin);
      SourceFile::LineCol e = d.range.file->line_col(std::max(d.range.end, d.range.begin));
      out += ",line=" + std::to_string(b.line) + ",col=" + std::to_string(b.column);
      out += ",endLine=" + std::to_string(e.line) + ",endColumn=" + std::to_string(e.column);
    }
    out += ",title=" + escape_property(std::string(code_id(d.code)) + " " + std::string(code_slug(d.code)));
    std::string message = d.message;
    if (!d.hints.empty()) message += " (" + joined_hints(d) + ")";
    out += "::" + escape_data(message) + "\n";
  }
  for (const auto& [path, n] : diags.hidden())
    out += "::notice file=" + escape_property(path) + "::" +
           escape_data(plural(n, "more diagnostic") + " not shown (at most " +
                       std::to_string(Diagnostics::kMaxPerFile) + " per file)") +
           "\n";
  return out;
}

}  // namespace seam::diag
