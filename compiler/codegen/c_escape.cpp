#include "compiler/codegen/c_escape.hpp"

namespace seam::codegen {

bool is_c_identifier(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!(alpha || (i > 0 && digit))) return false;
  }
  return true;
}

std::string c_string_literal(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' ||
                 c == '_' || c == '.' || c == ':' || c == '-';
    // '/' is plain except where it could start or end a comment with a neighbouring '*'.
    if (c == '/' && (out.back() != '*')) plain = true;
    if (plain) {
      out += static_cast<char>(c);
    } else {
      char buf[5] = {'\\', static_cast<char>('0' + ((c >> 6) & 7)), static_cast<char>('0' + ((c >> 3) & 7)),
                     static_cast<char>('0' + (c & 7)), 0};
      out += buf;
    }
  }
  out += '"';
  return out;
}

std::string comment_text(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c != 0 && kCommentPlain.find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace seam::codegen
