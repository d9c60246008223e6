#include "compiler/codegen/c_invariant.hpp"

#include <cctype>

#include "compiler/build/embedded.hpp"

namespace seam::codegen {

namespace {

constexpr std::string_view kLiteralPlain =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.:/-";
// `#include "NAME"` of a header embedded in seam (bpf-templates/, libbpf's), and nothing else.
constexpr std::string_view kHeaderName = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.";
constexpr std::string_view kUsdtDefine = "#define seam_usdt_arg(ctx, n) ";
// The parts of a parallel build (seam_prelude.h): each program sits in one such #if ... #endif.
constexpr std::string_view kPartTest = "#if SEAM_IN_PART(";

bool is_octal(char c) {
  return c >= '0' && c <= '7';
}
bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

class Scanner {
 public:
  explicit Scanner(std::string_view c) : c_(c) {}

  std::string run() {
    if (std::string e = bytes(); !e.empty()) return e;
    while (at_ < c_.size()) {
      std::string e = step();
      if (!e.empty()) return "line " + std::to_string(line_of(at_)) + ": " + e;
    }
    return {};
  }

 private:
  std::string bytes() const {
    for (size_t i = 0; i < c_.size(); ++i) {
      unsigned char ch = static_cast<unsigned char>(c_[i]);
      auto where = [&] { return "line " + std::to_string(line_of(i)) + ": "; };
      if (ch != '\t' && ch != '\n' && (ch < 0x20 || ch > 0x7e))
        return where() + "byte 0x" + std::string(1, "0123456789abcdef"[ch >> 4]) +
               std::string(1, "0123456789abcdef"[ch & 15]) + " outside printable ASCII";
      if (ch == '\\' && i + 1 < c_.size() && c_[i + 1] == '\n')
        return where() + "backslash before a line end";
      if (ch == '?' && i + 1 < c_.size() && c_[i + 1] == '?') return where() + "`??` (a trigraph)";
    }
    return {};
  }

  size_t line_of(size_t pos) const {
    size_t n = 1;
    for (size_t i = 0; i < pos && i < c_.size(); ++i) n += c_[i] == '\n';
    return n;
  }

  bool line_start() const {
    for (size_t i = at_; i > 0; --i) {
      char p = c_[i - 1];
      if (p == '\n') return true;
      if (p != ' ' && p != '\t') return false;
    }
    return true;
  }

  std::string step() {
    std::string_view rest = c_.substr(at_);
    if (rest.starts_with("/*")) {
      size_t end = c_.find("*/", at_ + 2);
      if (end == std::string_view::npos) return "unclosed comment";
      std::string e = comment_body(c_.substr(at_ + 2, end - at_ - 2));
      at_ = end + 2;
      return e;
    }
    if (rest.starts_with("//")) {
      size_t end = c_.find('\n', at_);
      if (end == std::string_view::npos) end = c_.size();
      std::string e = comment_body(c_.substr(at_ + 2, end - at_ - 2));
      at_ = end;
      return e;
    }
    if (rest[0] == '"' || rest[0] == '\'') return literal(rest[0]);
    if (rest[0] == '#') return line_start() ? directive() : "'#' in code outside a directive";
    ++at_;
    return {};
  }

  static std::string comment_body(std::string_view body) {
    for (size_t i = 0; i < body.size(); ++i) {
      if (body[i] == '\\') {
        if (i + 3 < body.size() && body[i + 1] == 'x' && is_hex(body[i + 2]) && is_hex(body[i + 3])) {
          i += 3;
          continue;
        }
        return "a backslash in a comment that is not a \\xHH escape";
      }
      // Printable ASCII is guaranteed above; a '*' is what comment_text never lets through.
      if (body[i] == '*') return "'*' in a comment (rule text must go through comment_text)";
    }
    return {};
  }

  std::string literal(char quote) {
    size_t i = at_ + 1;
    for (; i < c_.size() && c_[i] != quote; ++i) {
      if (c_[i] == '\\') {
        if (i + 3 < c_.size() && is_octal(c_[i + 1]) && is_octal(c_[i + 2]) && is_octal(c_[i + 3])) {
          i += 3;
          continue;
        }
        return "a backslash in a literal that is not an octal escape";
      }
      if (kLiteralPlain.find(c_[i]) == std::string_view::npos)
        return std::string("'") + c_[i] + "' in a literal (rule text must go through c_string_literal)";
    }
    if (i >= c_.size()) return "unclosed literal";
    at_ = i + 1;
    return {};
  }

  std::string directive() {
    size_t end = c_.find('\n', at_);
    if (end == std::string_view::npos) end = c_.size();
    std::string_view line = c_.substr(at_, end - at_);
    if (line.starts_with("#include ")) {
      std::string_view name = line.substr(9);
      bool quoted = name.size() > 2 && name.front() == '"' && name.back() == '"';
      if (quoted) name = name.substr(1, name.size() - 2);
      if (!quoted || name.find_first_not_of(kHeaderName) != std::string_view::npos || !embedded::find(name))
        return "an #include of a header seam does not ship";
      at_ = end;
      return {};
    }
    if (line.starts_with(kUsdtDefine)) {
      at_ = end;
      return {};
    }
    if (line == "#endif") {
      at_ = end;
      return {};
    }
    if (line.starts_with(kPartTest)) {  // `#if SEAM_IN_PART(N)`
      std::string_view n = line.substr(kPartTest.size());
      if (n.size() < 2 || n.back() != ')' ||
          n.substr(0, n.size() - 1).find_first_not_of("0123456789") != std::string_view::npos)
        return "an #if that is not `#if SEAM_IN_PART(N)`";
      at_ = end;
      return {};
    }
    if (line.starts_with("#line ")) {
      size_t i = 6;
      while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
      if (i == 6 || i + 1 >= line.size() || line[i] != ' ' || line[i + 1] != '"' || line.back() != '"')
        return "a #line directive that is not `#line N \"FILE\"`";
      at_ += i + 1;  // the file name is checked as a literal
      std::string e = literal('"');
      if (e.empty() && at_ != end) return "text after a #line directive";
      return e;
    }
    return "a preprocessor directive seam does not write";
  }

  std::string_view c_;
  size_t at_ = 0;
};

}  // namespace

std::string c_invariant_violation(std::string_view c) {
  return Scanner(c).run();
}

}  // namespace seam::codegen
